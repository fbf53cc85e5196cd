# jetEngine (FPBench rosa.fpcore; FPTaylor benchmarks): inputs real, rounded to binary64
@rnd = float<ieee_64,ne>;
x1 = rnd(x1_m); x2 = rnd(x2_m);
t rnd= (((3 * x1) * x1) + (2 * x2)) - x1;
t_ rnd= (((3 * x1) * x1) - (2 * x2)) - x1;
d rnd= (x1 * x1) + 1;
s rnd= t / d;
s_ rnd= t_ / d;
r rnd= x1 + (((((((((2 * x1) * s) * (s - 3)) + ((x1 * x1) * ((4 * s) - 6))) * d) + (((3 * x1) * x1) * s)) + ((x1 * x1) * x1)) + x1) + (3 * s_));
t_m = (((3 * x1_m) * x1_m) + (2 * x2_m)) - x1_m;
tt_m = (((3 * x1_m) * x1_m) - (2 * x2_m)) - x1_m;
d_m = (x1_m * x1_m) + 1;
s_m = t_m / d_m;
ss_m = tt_m / d_m;
r_m = x1_m + (((((((((2 * x1_m) * s_m) * (s_m - 3)) + ((x1_m * x1_m) * ((4 * s_m) - 6))) * d_m) + (((3 * x1_m) * x1_m) * s_m)) + ((x1_m * x1_m) * x1_m)) + x1_m) + (3 * ss_m));
{ x1_m in [-5, 5] /\ x2_m in [-20, 5] -> r - r_m in ? }
