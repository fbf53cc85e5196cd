"""SONFIN, the self-constructing neuro-fuzzy network, from Python.

A notebook-style walk through haze.SONFINClassifier and SONFINRegressor:
train, score, look at the rules it made, save the model for the command
line, export it as a MATLAB .fis file, and use it inside scikit-learn.
Run it as a script; it writes its files in the current folder.
"""

import numpy as np

import haze
from haze.fnn import SONFINClassifier, SONFINRegressor

# ## The data
#
# The wine data set of scikit-learn (178 wines, 13 chemical measurements, 3
# cultivars) when scikit-learn is installed; otherwise three Gaussian blobs
# in 5 dimensions. Class labels may be anything NumPy can sort: here
# strings with blanks, which come back exactly as given.
try:
    from sklearn.datasets import load_wine
    from sklearn.model_selection import train_test_split
    X, y = load_wine(return_X_y=True)
    HAVE_SKLEARN = True
except ImportError:
    rs = np.random.RandomState(0)
    centres = rs.uniform(-3, 3, size=(3, 5))
    y = np.arange(180) % 3
    X = centres[y] + rs.normal(size=(180, 5))
    HAVE_SKLEARN = False
names = np.array(["cultivar one", "cultivar two", "cultivar three"])
labels = names[y]

if HAVE_SKLEARN:
    X_train, X_test, y_train, y_test = train_test_split(X, labels, test_size=0.25,
                                                        random_state=0, stratify=labels)
else:
    X_train, X_test, y_train, y_test = X[:135], X[135:], labels[:135], labels[135:]
print(f"{len(X_train)} training and {len(X_test)} test samples, {X.shape[1]} inputs")

# ## Training
#
# The defaults are those of `haze fnn train`: inputs standardised from the
# training data (stored in the model), 20 epochs, rules of width 1.5 made
# where no rule fires above 0.8 per input, a tenth of the rows held out to
# keep the best epoch, and the learning rate halved after an epoch whose
# loss rose. `backend="auto"` trains on the GPU when there is one.
clf = SONFINClassifier(epochs=10)
clf.fit(X_train, y_train)
print(clf)
print(f"rules: {clf.n_rules_}, kept epoch: {clf.best_epoch_ + 1} of {len(clf.history_)}")
print(f"test accuracy: {100 * clf.score(X_test, y_test):.2f}%")
print("first predictions:", list(clf.predict(X_test[:3])))
print("class shares of the first test sample:",
      {str(c): round(float(p), 3) for c, p in zip(clf.classes_, clf.predict_proba(X_test[:1])[0])})

# Each epoch's record: loss and accuracy on the training rows (as seen just
# before each update) and on the held-out rows, and the rule count.
for h in clf.history_[:3]:
    print(f"epoch {h['epoch'] + 1}: rules {h['rules']}, loss {h['loss']:.4f}, "
          f"held-out accuracy {100 * h['val_accuracy']:.1f}%")

# ## Inside the network
#
# Every rule has a centre and a width per input (in standardised units) and
# one consequent per class.
print("centres", clf.centers_.shape, "widths", clf.widths_.shape,
      "consequents", clf.weights_.shape)

# ## Files
#
# `save` writes the model file of the command line (`haze fnn predict
# wine.fnn data.csv` reads it and predicts the same labels); `export_fis`
# writes a MATLAB/Octave Sugeno system. Loading gives a fitted estimator.
clf.save("wine.fnn")
clf.export_fis("wine.fis")
again = haze.fnn.load("wine.fnn")
assert (again.predict(X_test) == clf.predict(X_test)).all()
print("wine.fnn reloaded:", again.n_rules_, "rules, classes", list(again.classes_))

# ## Regression
#
# A regressor learns standardised targets, so targets of any size need no
# tuning of the learning rate. Here: one measurement from the others.
reg = SONFINRegressor(epochs=10).fit(X_train[:, 1:], X_train[:, 0])
print(f"regression R^2 on the test rows: {reg.score(X_test[:, 1:], X_test[:, 0]):.3f} "
      f"({reg.n_rules_} rules)")

# ## With scikit-learn
#
# The estimators follow scikit-learn's conventions: pipelines, clone,
# cross-validation (also in worker processes: a fitted estimator pickles
# through its model file) and grid search work.
if HAVE_SKLEARN:
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    pipe = make_pipeline(StandardScaler(), SONFINClassifier(epochs=5))
    scores = cross_val_score(pipe, X, labels, cv=3)
    print("3-fold accuracy:", np.round(100 * scores, 1))

# ## The training history as a picture
try:
    import matplotlib
    matplotlib.use("Agg")
    ax = clf.plot_history()
    ax.figure.savefig("sonfin-history.png", dpi=80)
    print("wrote sonfin-history.png")
except ImportError:
    print("matplotlib is not installed: no picture")
