/* Placeholder so the CLI links before the measurement commands land; it is
 * replaced by the real bench/metrics/roofline implementation. */
#include <stdio.h>
int ls_cmd_bench(int argc, char **argv);
int ls_cmd_metrics(int argc, char **argv);
int ls_cmd_roofline(int argc, char **argv);
int ls_cmd_bench(int argc, char **argv) { (void)argc; (void)argv; fputs("linsolve bench: not built yet\n", stderr); return 5; }
int ls_cmd_metrics(int argc, char **argv) { (void)argc; (void)argv; fputs("linsolve metrics: not built yet\n", stderr); return 5; }
int ls_cmd_roofline(int argc, char **argv) { (void)argc; (void)argv; fputs("linsolve roofline: not built yet\n", stderr); return 5; }
