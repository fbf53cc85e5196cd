## scripts/golden/fcm/make_gk_golden.m - Gustafson-Kessel reference outputs
## of Octave's fuzzy-logic-toolkit (gustafson_kessel, version 0.4.6) for
## tests/test_fcm.c. Run from the repository root:
##   octave --no-gui --eval "pkg load fuzzy-logic-toolkit; source("scripts/golden/fcm/make_gk_golden.m")"
## Data: three elongated, rotated Gaussian clusters in 2-D (where GK and
## Euclidean FCM differ), 300 points. The toolkit draws its initial centres
## with rand(k, d) scaled to the data's range; the script draws the same
## numbers first (same rand state) and saves them, so haze can start from
## the same centres. Tolerance 0 makes the toolkit run all K iterations.
out = "tests/data/fcm";
randn("state", 3);
n1 = 100;
R = @(t) [cos(t) -sin(t); sin(t) cos(t)];
S = diag([3.0 0.4]);
X = [randn(n1, 2) * S * R(0.5)' + [0 0];
     randn(n1, 2) * S * R(-0.7)' + [6 4];
     randn(n1, 2) * S * R(1.4)' + [1 7]];
k = 3;
K = 25;
rand("state", 7);
V0 = rand(k, 2);
for i = 1:2
  V0(:, i) = (max(X(:, i)) - min(X(:, i))) * V0(:, i) + min(X(:, i));
endfor
rand("state", 7);
[V, Mu, obj] = gustafson_kessel(X, k, [1 1 1], [2.0, K, 0, 0]);
## The toolkit returns V(K) and the memberships U(K-1) it computed them from.
dlmwrite(fullfile(out, "gk_data.csv"), X, "precision", "%.17g");
dlmwrite(fullfile(out, "gk_v0.csv"), V0, "precision", "%.17g");
dlmwrite(fullfile(out, "gk_centers.csv"), V, "precision", "%.17g");
dlmwrite(fullfile(out, "gk_u_prev.csv"), Mu', "precision", "%.17g");
dlmwrite(fullfile(out, "gk_objective.csv"), obj(1:K)(:), "precision", "%.17g");
