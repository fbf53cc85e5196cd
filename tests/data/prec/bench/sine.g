# sine (FPBench rosa.fpcore; FPTaylor benchmarks): inputs real, rounded to binary64
@rnd = float<ieee_64,ne>;
x = rnd(x_m);
r rnd= ((x - (((x * x) * x) / 6)) + (((((x * x) * x) * x) * x) / 120)) - (((((((x * x) * x) * x) * x) * x) * x) / 5040);
r_m = ((x_m - (((x_m * x_m) * x_m) / 6)) + (((((x_m * x_m) * x_m) * x_m) * x_m) / 120)) - (((((((x_m * x_m) * x_m) * x_m) * x_m) * x_m) * x_m) / 5040);
{ x_m in [-1.57079632679, 1.57079632679] -> r - r_m in ? }
