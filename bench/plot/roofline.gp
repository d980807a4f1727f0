# Roofline from `linsolve roofline` output (run where roofline_sweep.csv and
# roofline_methods.csv are). Set the two measured ceilings first, from the
# "ceilings" table of the same run:
#   gnuplot -e "bw=3000; peak=50000" bench/plot/roofline.gp
if (!exists("bw")) bw = 1000.0
if (!exists("peak")) peak = 10000.0
if (!exists("out")) out = 'roofline.png'
ridge = peak / bw
set terminal pngcairo size 1000,700
set output out
set datafile separator ','
set logscale xy
set xlabel 'operational intensity (flop/byte)'
set ylabel 'GFLOP/s'
set key left top
roof(x) = (x * bw < peak) ? x * bw : peak
set arrow from ridge, graph 0 to ridge, graph 1 nohead dt 2
plot [0.01:10000] roof(x) title sprintf('measured roof, ridge %.2f flop/B', ridge) lw 2, \
     'roofline_sweep.csv' using 3:4 skip 1 with linespoints title 'intensity sweep (Li 2025)', \
     'roofline_methods.csv' using 5:6:1 skip 1 with labels point pt 7 offset 1,0.5 title 'methods'
