#!/bin/sh
# scripts/golden/fis/octave_evalfis.sh - regenerates tests/data/fis/octave/*.csv:
# Octave's evalfis (fuzzy-logic-toolkit 0.4.6, 101 points) on a grid of
# inputs over each input's range (7 points per input, 3 for 3+ inputs) for
# the six .fis files that the toolkit ships. Needs octave and
# octave-fuzzy-logic-toolkit; CI only reads the committed CSV files.
set -eu
cd "$(dirname "$0")/../../../tests/data/fis/octave"
for f in *.fis; do
    base=${f%.fis}
    octave --no-gui --quiet --eval "
pkg load fuzzy-logic-toolkit;
fis = readfis('$f');
ni = columns(fis.input);
if ni >= 3, g = 3; elseif ni == 1, g = 41; else, g = 7; end
axes = cell(1, ni);
for j = 1:ni
  r = fis.input(j).range;
  axes{j} = linspace(r(1), r(2), g);
end
grids = cell(1, ni);
[grids{:}] = ndgrid(axes{:});
X = zeros(numel(grids{1}), ni);
for j = 1:ni, X(:, j) = grids{j}(:); end
Y = evalfis(X, fis, 101);
fid = fopen('$base.csv', 'w');
fprintf(fid, '# Octave fuzzy-logic-toolkit 0.4.6 evalfis(X, fis, 101) of $f\n');
fmt = [repmat('%.17g,', 1, ni + columns(Y) - 1) '%.17g\n'];
fprintf(fid, fmt, [X Y]');
fclose(fid);
"
done
