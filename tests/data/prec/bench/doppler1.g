# doppler1 (FPBench rosa.fpcore; FPTaylor benchmarks): inputs real, rounded to binary64
@rnd = float<ieee_64,ne>;
u = rnd(u_m); v = rnd(v_m); T = rnd(T_m);
t1 rnd= rnd(331.4) + rnd(0.6) * T;
r rnd= (-t1 * v) / ((t1 + u) * (t1 + u));
t1_m = 331.4 + 0.6 * T_m;
r_m = (-t1_m * v_m) / ((t1_m + u_m) * (t1_m + u_m));
{ u_m in [-100, 100] /\ v_m in [20, 20000] /\ T_m in [-30, 50] -> r - r_m in ? }
