# haze's own float32 kernel: the fuzzy c-means membership update (Bezdek,
# 1981) for fuzzifier m = 2 and c = 3 clusters, as a GPU or CPU kernel
# computes it in binary32 from the squared distances a, b, c of a point to
# the three centres:
#     u = 1 / (1 + a/b + a/c)   (the sum over k of (d_i/d_k)^(2/(m-1)), own term 1)
# The squared distances are inputs (already rounded to binary32), from 1e-3
# to 1e3. The relative error of u is what matters: memberships near 0 must
# keep their precision.
@r = float<ieee_32,ne>;
a = r(a_m);
b = r(b_m);
c = r(c_m);
u r= 1 / ((1 + a / b) + a / c);
u_m = 1 / ((1 + a_m / b_m) + a_m / c_m);
{ a_m in [1e-3, 1e3] /\ b_m in [1e-3, 1e3] /\ c_m in [1e-3, 1e3] ->
  u - u_m in ? /\ u -/ u_m in ? /\ |u -/ u_m| <= 1b-20 }
