# Li (2025)'s comparison: GPU time of ge-naive / ge-blocked / ge-coalesced vs n,
# from `linsolve bench --format csv` output (seed000.txt of scripts/bench-gpu-suite.sh).
#   gnuplot -e "file='seed000.txt'; prec='single'" bench/plot/seed000.gp
if (!exists("file")) file = 'seed000.txt'
if (!exists("prec")) prec = 'single'
set terminal pngcairo size 900,600
set output sprintf('seed000_%s.png', prec)
set datafile separator ','
set logscale xy
set xlabel 'n'
set ylabel 'device time (s)'
set key left top
sel(m) = sprintf("< grep ',%s,cuda,%s,' %s", m, prec, file)
plot sel('ge-naive') using 1:6 with linespoints title 'naive', \
     sel('ge-blocked') using 1:6 with linespoints title 'blocked', \
     sel('ge-coalesced') using 1:6 with linespoints title 'coalesced', \
     sprintf("< grep ',lapack,cpu,%s,' %s", prec, file) using 1:6 with linespoints title 'OpenBLAS (cpu)'
