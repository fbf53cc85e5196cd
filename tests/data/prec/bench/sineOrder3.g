# sineOrder3 (FPBench rosa.fpcore; FPTaylor benchmarks): inputs real, rounded to binary64
@rnd = float<ieee_64,ne>;
x = rnd(x_m); a = rnd(0.954929658551372); b = rnd(0.12900613773279798);
r rnd= (a * x) - (b * ((x * x) * x));
r_m = (0.954929658551372 * x_m) - (0.12900613773279798 * ((x_m * x_m) * x_m));
{ x_m in [-2, 2] -> r - r_m in ? }
