# carbonGas (FPBench rosa.fpcore; FPTaylor benchmarks): inputs real, rounded to binary64
@rnd = float<ieee_64,ne>;
v = rnd(v_m);
p = rnd(3.5e7); a = rnd(0.401); b = rnd(42.7e-6); t = rnd(300); n = rnd(1000); k = rnd(1.3806503e-23);
r rnd= (p + a * (n / v) * (n / v)) * (v - n * b) - k * n * t;
r_m = (3.5e7 + 0.401 * (1000 / v_m) * (1000 / v_m)) * (v_m - 1000 * 42.7e-6) - 1.3806503e-23 * 1000 * 300;
{ v_m in [0.1, 0.5] -> r - r_m in ? }
