# turbine3 (FPBench rosa.fpcore; FPTaylor benchmarks): inputs real, rounded to binary64
@rnd = float<ieee_64,ne>;
v = rnd(v_m); w = rnd(w_m); r = rnd(r_m);
y rnd= ((3 - (2 / (r * r))) - (((0.125 * (1 + (2 * v))) * (((w * w) * r) * r)) / (1 - v))) - 0.5;
y_m = ((3 - (2 / (r_m * r_m))) - (((0.125 * (1 + (2 * v_m))) * (((w_m * w_m) * r_m) * r_m)) / (1 - v_m))) - 0.5;
{ v_m in [-4.5, -0.3] /\ w_m in [0.4, 0.9] /\ r_m in [3.8, 7.8] -> y - y_m in ? }
