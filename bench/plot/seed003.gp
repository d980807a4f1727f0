# Quispe Ccapacca's two tables as one plot: gj1 / gj2 time with and without the
# host<->device transfers, from seed003.txt (bench --format csv).
#   gnuplot -e "file='seed003.txt'" bench/plot/seed003.gp
if (!exists("file")) file = 'seed003.txt'
set terminal pngcairo size 900,600
set output 'seed003.png'
set datafile separator ','
set xlabel 'n'
set ylabel 'time (s)'
set key left top
sel(m) = sprintf("< grep ',%s,cuda,' %s", m, file)
plot sel('gj1') using 1:7 with linespoints title 'gj1 with transfers', \
     sel('gj1') using 1:6 with linespoints title 'gj1 without', \
     sel('gj2') using 1:7 with linespoints title 'gj2 with transfers', \
     sel('gj2') using 1:6 with linespoints title 'gj2 without'
