# x^3 in binary64 over [1, 1000]: the rounding error grows with x^3, nine
# decades over the range (tests/cli/plot.sh: prec --plot --bisect)
@d = float<ieee_64,ne>;
x = d(x_m);
y = d(d(x * x) * x);
y_m = x_m * x_m * x_m;
{ x_m in [1, 1000] -> y - y_m in ? }
