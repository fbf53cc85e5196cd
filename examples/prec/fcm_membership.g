# haze's own float32 kernel: the fuzzy c-means membership update of
# src/fcm/fcm_cpu_impl.h (and its GPU twin), max-rescaled form of Anderson et
# al. (2008): u_j = w_j / sum_k w_k with w_j = dmin / D_j, for fuzzifier
# m = 2 and c = 3 clusters, everything in binary32:
#     w_j = dmin / D_j;  sum = ((0 + w_1) + w_2) + w_3;  u_j = w_j / sum
# D_j are the squared distances (binary32 numbers, from 1e-3 to 1e3); the
# nearest centre is number 1, so w_1 = D_1 / D_1 = 1 exactly. The analysis
# covers every D_1 in the range (a superset of the runs where D_1 is the
# smallest: the formula is the same for any choice of dmin). Goals: the
# relative errors of the nearest and of another membership against the
# exact memberships of the same distances.
@r = float<ieee_32,ne>;
D1 = r(D1_m);
D2 = r(D2_m);
D3 = r(D3_m);
w2 = r(D1 / D2);
w3 = r(D1 / D3);
s = r(r(1 + w2) + w3);
u1 = r(1 / s);
u2 = r(w2 / s);
u1_m = 1 / (1 + D1 / D2 + D1 / D3);
u2_m = (D1 / D2) / (1 + D1 / D2 + D1 / D3);
{ D1_m in [1e-3, 1e3] /\ D2_m in [1e-3, 1e3] /\ D3_m in [1e-3, 1e3] ->
  u1 - u1_m in ? /\ |u1 -/ u1_m| <= 1b-20 /\ |u2 -/ u2_m| <= 1b-20 }
