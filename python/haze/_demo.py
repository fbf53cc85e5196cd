"""haze.demo(): a short tour of the package on embedded data."""

import numpy as np

from ._core import build_info, default_context

_FIXED_POINT = """
c_m = 0.5;
o_m = (c_m*x1_m)+(x2_m-x1_m);
c_fx = fixed<-1,ne>(c_m);
x1_fx = fixed<-3,ne>(x1_m);
x2_fx = fixed<-2,ne>(x2_m);
o_fx fixed<-3,ne> = (c_fx*x1_fx)+(x2_fx-x1_fx);
{ x1_m in [-10,10] /\\ x2_m in [-5,5] -> o_fx-o_m in ? }
"""


def demo():
    """Prints what this build holds and runs each capability once on a small
    embedded example (the Python twin of ``haze demo``)."""
    from . import cluster, edge, fis, fnn, fuzzy, prec

    info = build_info()
    ctx = default_context()
    print(f"haze {info['version']} (Python): CUDA build {'yes' if info['cuda'] else 'no'}, "
          f"{info['devices']} device(s), computing on {ctx.backend}")

    a, b = fuzzy.tri("0.9", 1, "1.1", cuts=4), fuzzy.gauss(2, "0.25", 3, cuts=4)
    r = a * b + 1
    lo, hi = r.support
    print(f"\n[fuzzy]  tri(0.9,1,1.1)*gauss(2,0.25,3)+1 over 4 alpha-cuts: lowest cut "
          f"[{lo!r}, {hi!r}], kernel {r.kernel} (bounds rounded outward)")

    tip = fis.FIS("tipper")
    service = tip.add_input("service", (0, 10))
    service.add_term("poor", "gaussmf", [1.5, 0])
    service.add_term("good", "gaussmf", [1.5, 5])
    service.add_term("excellent", "gaussmf", [1.5, 10])
    food = tip.add_input("food", (0, 10))
    food.add_term("rancid", "trapmf", [0, 0, 1, 3])
    food.add_term("delicious", "trapmf", [7, 9, 10, 10])
    out = tip.add_output("tip", (0, 30))
    out.add_term("cheap", "trimf", [0, 5, 10])
    out.add_term("average", "trimf", [10, 15, 20])
    out.add_term("generous", "trimf", [20, 25, 30])
    tip.add_rule("if service is poor or food is rancid then tip is cheap")
    tip.add_rule("if service is good then tip is average")
    tip.add_rule("if service is excellent or food is delicious then tip is generous")
    rows = np.array([[2.0, 1.0], [4.0, 5.0], [9.0, 9.5]])
    print(f"[fis]    the tipper built in code: tips {np.round(tip.eval(rows)[:, 0], 4).tolist()} "
          f"for (service, food) {rows.tolist()}")

    img = np.zeros((64, 64), np.uint8)
    img[16:48, 16:48] = 200
    e = edge.edges(img)
    print(f"[edge]   FIRE on a 64 x 64 square: {int((e < 255).sum())} edge pixels "
          f"(dark on white) of {e.size}")

    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [5.0, 5.0], [0.0, 6.0]])
    X = np.concatenate([c + rng.normal(0, 0.7, (200, 2)) for c in centres])
    fcm = cluster.FCM(n_clusters=3, random_state=1).fit(X)
    order = np.lexsort(fcm.cluster_centers_.T[::-1])
    print(f"[fcm]    600 points, 3 clusters: centres "
          f"{np.round(fcm.cluster_centers_[order], 2).tolist()}, "
          f"partition coefficient {fcm.partition_coefficient_:.3f}, {fcm.n_iter_} iterations")

    y = np.repeat(["left", "right", "top"], 200)
    net = fnn.SONFINClassifier(epochs=5).fit(X[::2], y[::2])
    print(f"[fnn]    SONFIN on the same points: {net.n_rules_} rules, "
          f"held-out accuracy {net.score(X[1::2], y[1::2]):.3f}")

    res = prec.analyse(_FIXED_POINT, name="fixed_point.g")
    g = res.goals[0]
    print(f"[prec]   fixed-point error o_fx-o_m in [{g.lo_decimal}, {g.hi_decimal}] "
          f"(exact [{g.lo_exact}, {g.hi_exact}])")
