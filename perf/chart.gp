# Throughput of each writer relative to mapout::ostream (1 = as fast, 2 = twice as fast), per
# workload, on a log scale shared by every panel; mapout's own bars solid and outlined, the
# peers' pale, the memory ceiling a dashed line over each workload. Data from perf/compare's
# chart.dat (the ceiling is its last column; row 0 of each block is its header); compare runs:
#   gnuplot -e "data='chart.dat'; output='throughput.svg'; panels=2; marks='0 0 1 0';
#               low=0.125; high=16; workloads=5; title_1='disk, 256 MiB'; ..." chart.gp
# An output ending in .png draws a PNG instead.
if (output[strlen(output)-3:] eq ".png") {
  set terminal pngcairo size 1100,430*panels font "sans,10" background "white"
} else {
  set terminal svg size 1100,430*panels dynamic font "sans,11" background "white"
}
set output output
set multiplot layout panels,1
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set xrange [-0.6:workloads - 0.4]
set logscale y 2
set yrange [low:high]
set format y "%gx"
set ylabel "median throughput / mapout::ostream's (higher: faster)"
set grid ytics
set key outside right top vertical noenhanced
set xtics noenhanced
set datafile missing "-"
# The ceiling's segments without end marks.
set bars 0
writers = words(marks)
peer_colors = "#4c72b0 #55a868 #8172b2 #64b5cd #937860 #ccb974 #8c8c8c #da8bc3"
mapout_colors = "#d62728 #ff7f0e #b8860b #8b0000 #ff6347 #e9967a"
# The n-th peer (or mapout writer) among the columns up to `col`, for its colour.
rank(col, mark) = sum [c=1:col] (word(marks, c) eq mark ? 1 : 0)
colour(col) = word(marks, col) eq "1" ? word(mapout_colors, (rank(col, "1") - 1) % 6 + 1) \
                                      : word(peer_colors, (rank(col, "0") - 1) % 8 + 1)
do for [panel=1:panels] {
  set title value(sprintf("title_%d", panel)) noenhanced
  plot for [col=1:writers-1] data index (panel - 1) using (column(col + 1)):xtic(1) \
         title columnheader(col + 1) lc rgb colour(col) \
         fs solid (word(marks, col) eq "1" ? 1.0 : 0.45) \
         border lc rgb (word(marks, col) eq "1" ? "black" : colour(col)), \
       1 with lines lc rgb "black" lw 1 dt 1 notitle, \
       data index (panel - 1) using ($0 - 1):(column(writers + 1)):(0.45) with xerrorbars \
         pt -1 lc rgb "#333333" lw 2 dt 2 title "ceiling (memory)"
}
unset multiplot
