# verhulst (FPBench rosa.fpcore; FPTaylor benchmarks): inputs real, rounded to binary64
@rnd = float<ieee_64,ne>;
x = rnd(x_m); K = rnd(1.11);
r rnd= (4 * x) / (1 + (x / K));
r_m = (4 * x_m) / (1 + (x_m / 1.11));
{ x_m in [0.1, 0.3] -> r - r_m in ? }
