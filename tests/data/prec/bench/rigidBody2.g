# rigidBody2 (FPBench rosa.fpcore; FPTaylor benchmarks): inputs real, rounded to binary64
@rnd = float<ieee_64,ne>;
x1 = rnd(x1_m); x2 = rnd(x2_m); x3 = rnd(x3_m);
r rnd= 2 * x1 * x2 * x3 + 3 * x3 * x3 - x2 * x1 * x2 * x3 + 3 * x3 * x3 - x2;
r_m = 2 * x1_m * x2_m * x3_m + 3 * x3_m * x3_m - x2_m * x1_m * x2_m * x3_m + 3 * x3_m * x3_m - x2_m;
{ x1_m in [-15, 15] /\ x2_m in [-15, 15] /\ x3_m in [-15, 15] -> r - r_m in ? }
