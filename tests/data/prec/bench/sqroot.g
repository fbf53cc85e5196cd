# sqroot (FPBench rosa.fpcore; FPTaylor benchmarks): inputs real, rounded to binary64
@rnd = float<ieee_64,ne>;
x = rnd(x_m);
r rnd= (((1 + (0.5 * x)) - ((0.125 * x) * x)) + (((0.0625 * x) * x) * x)) - ((((0.0390625 * x) * x) * x) * x);
r_m = (((1 + (0.5 * x_m)) - ((0.125 * x_m) * x_m)) + (((0.0625 * x_m) * x_m) * x_m)) - ((((0.0390625 * x_m) * x_m) * x_m) * x_m);
{ x_m in [0, 1] -> r - r_m in ? }
