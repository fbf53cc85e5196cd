# himmilbeau (FPBench rosa.fpcore; FPTaylor benchmarks): inputs real, rounded to binary64
@rnd = float<ieee_64,ne>;
x1 = rnd(x1_m); x2 = rnd(x2_m);
a rnd= ((x1 * x1) + x2) - 11;
b rnd= (x1 + (x2 * x2)) - 7;
r rnd= (a * a) + (b * b);
a_m = ((x1_m * x1_m) + x2_m) - 11;
b_m = (x1_m + (x2_m * x2_m)) - 7;
r_m = (a_m * a_m) + (b_m * b_m);
{ x1_m in [-5, 5] /\ x2_m in [-5, 5] -> r - r_m in ? }
