# Throughput by writer and workload, one panel per file system, from perf/compare's chart.dat.
# compare runs it as:
#   gnuplot -e "data='chart.dat'; output='throughput.svg'; panels=2; workloads=5;
#               title_1='disk, 1 GiB'; ..." chart.gp
set terminal svg size 1100,450*panels dynamic font "sans,11" background "white"
set output output
set multiplot layout panels,1
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set ylabel "GB/s (median)"
set yrange [0:*]
set grid ytics
set key outside right top vertical noenhanced
set xtics rotate by -40 left noenhanced
set bmargin 10
set datafile missing "-"
do for [panel=1:panels] {
  set title value(sprintf("title_%d", panel)) noenhanced
  plot for [col=2:workloads+1] data index (panel - 1) using col:xtic(1) title columnheader(col)
}
unset multiplot
