# kepler0 (FPBench rosa.fpcore; FPTaylor benchmarks): inputs real, rounded to binary64
@rnd = float<ieee_64,ne>;
x1 = rnd(x1_m); x2 = rnd(x2_m); x3 = rnd(x3_m); x4 = rnd(x4_m); x5 = rnd(x5_m); x6 = rnd(x6_m);
r rnd= ((((x2 * x5) + (x3 * x6)) - (x2 * x3)) - (x5 * x6)) + (x1 * (((((-x1 + x2) + x3) - x4) + x5) + x6));
r_m = ((((x2_m * x5_m) + (x3_m * x6_m)) - (x2_m * x3_m)) - (x5_m * x6_m)) + (x1_m * (((((-x1_m + x2_m) + x3_m) - x4_m) + x5_m) + x6_m));
{ x1_m in [4, 6.36] /\ x2_m in [4, 6.36] /\ x3_m in [4, 6.36] /\ x4_m in [4, 6.36] /\ x5_m in [4, 6.36] /\ x6_m in [4, 6.36] -> r - r_m in ? }
