# Fuzzy c-means with haze, step by step: the walk through scikit-fuzzy's
# cmeans tutorial (three Gaussian clusters, how many clusters, a model,
# new points), then what haze adds: k-means++ starts, validity indices,
# Gustafson-Kessel for elongated clusters, float32 data, plots.
#
# Run: python3 examples/python/cmeans.py (it writes cmeans_*.png where
# matplotlib is installed).

import numpy as np

from haze.cluster import FCM, cmeans, cmeans_predict

# ## The data: 200 points around each of three centres
#
# Each cluster has its own spread along x and y. haze takes points as rows
# (n_samples x n_features), as scikit-learn does.
rng = np.random.default_rng(42)
centres = [(4, 2), (1, 7), (5, 6)]
sigmas = [(0.8, 0.3), (0.3, 0.5), (1.1, 0.7)]
X = np.vstack([rng.normal(mu, s, size=(200, 2)) for mu, s in zip(centres, sigmas)])
print(f"data: {X.shape[0]} points, {X.shape[1]} features")

# ## How many clusters?
#
# Fit c = 2 ... 10 and compare the fuzzy partition coefficient (1 for a
# crisp partition, 1/c for memberships all equal) and the Xie-Beni index
# (compactness over separation: smaller is better). tol=0.005 is the
# tutorial's error: the fit stops when the memberships move less than that.
fits = {c: FCM(n_clusters=c, tol=0.005, random_state=0).fit(X) for c in range(2, 11)}
print("\n c   partition coefficient   Xie-Beni   iterations")
for c, f in fits.items():
    print(f"{c:2d}   {f.partition_coefficient_:21.3f}   {f.xie_beni_:8.3f}   {f.n_iter_:10d}")
best = min(fits, key=lambda c: fits[c].xie_beni_)
print(f"Xie-Beni's choice: {best} clusters")

# ## The model with three clusters
model = fits[3]
print("\ncentres:\n", np.round(model.cluster_centers_, 3))
print("memberships of the first point:", np.round(model.u_[0], 3),
      "-> cluster", model.labels_[0])

# ## New points
#
# Uniform points over [0, 10]^2, classified by the trained centres:
# predict_proba gives the memberships, predict the largest one's cluster.
new = rng.uniform(0, 10, size=(1100, 2))
u_new = model.predict_proba(new)
print("\nnew points per cluster:", np.bincount(model.predict(new), minlength=3))

# ## The same in scikit-fuzzy's words
#
# haze.cluster.cmeans and cmeans_predict take and return what
# skfuzzy.cluster.cmeans and cmeans_predict do (data as features x points),
# so a scikit-fuzzy program changes only its import. With the same seed it
# starts from the same random memberships as scikit-fuzzy.
cntr, u, u0, d, jm, p, fpc = cmeans(X.T, 3, 2, error=0.005, maxiter=1000, seed=42)
print(f"\ncmeans: {p} iterations, fpc {fpc:.3f}, objective {jm[-1]:.2f}")
u2, _, _, _, _, _ = cmeans_predict(new.T, cntr, 2, error=0.005, maxiter=1000)
print("cmeans_predict: memberships", u2.shape, "(clusters x points)")

# ## Elongated clusters: Gustafson-Kessel
#
# A long horizontal cluster and a long vertical one above its middle, like a
# T with a gap: the Euclidean distance gives the foot of the vertical one
# to the nearer horizontal centre; Gustafson-Kessel learns one covariance
# norm per cluster (norms_) and follows the shapes.
h = np.c_[rng.uniform(-6, 6, 200), 0.2 * rng.standard_normal(200)]
v = np.c_[0.2 * rng.standard_normal(200), rng.uniform(1.5, 13.5, 200)]
arms = np.r_[h, v]
truth = np.r_[np.zeros(200), np.ones(200)]
for metric in ("euclidean", "gk"):
    f = FCM(n_clusters=2, metric=metric, random_state=1).fit(arms)
    agree = max(np.mean(f.labels_ == truth), np.mean(f.labels_ != truth))
    print(f"{metric:>9}: {100 * agree:.0f}% of the points in their own cluster")

# ## float32 data
#
# float32 arrays are clustered in float32 without a float64 copy (half the
# memory; on a GPU, much faster); the results come back as float64.
f32 = FCM(n_clusters=3, random_state=0).fit(X.astype(np.float32))
print(f"\nfloat32 fit: precision {f32.precision_}, centres off by at most "
      f"{np.abs(f32.cluster_centers_ - model.cluster_centers_).max():.1e}")

# ## Plots (with matplotlib)
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no plots")
else:
    fig, axes = plt.subplots(3, 3, figsize=(10, 10))
    for ax, (c, f) in zip(axes.flat, fits.items()):
        f.plot(X, ax=ax)
        ax.set_title(f"c = {c}, PC = {f.partition_coefficient_:.2f}", fontsize=9)
    fig.tight_layout()
    fig.savefig("cmeans_c.png", dpi=72)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    model.plot(new, ax=a1)
    a1.set_title("new points, coloured by the trained model")
    model.plot_objective(ax=a2)
    fig.tight_layout()
    fig.savefig("cmeans_model.png", dpi=72)
    print("wrote cmeans_c.png and cmeans_model.png")
