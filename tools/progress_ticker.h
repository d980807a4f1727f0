/* A progress line for long solves: redrawn twice a second on stderr with the
 * elapsed time, and the fraction done whenever the backend reports one.
 * Backends such as LAPACK report nothing between start and end, so the
 * elapsed time is what shows the work is alive. */
#ifndef LS_CLI_PROGRESS_TICKER_H
#define LS_CLI_PROGRESS_TICKER_H

#include <pthread.h>

typedef struct ls_cli_ticker {
    int active;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop;
    double t0;
    double fraction; /* < 0: not reported */
    char what[64];
} ls_cli_ticker;

/** Start drawing (only call when stderr is a terminal). */
void ls_cli_ticker_start(ls_cli_ticker *t, const char *what);
/** ls_progress_fn: records the fraction the backend reports. */
void ls_cli_ticker_update(void *arg, double fraction, const char *what);
/** Stop, draw the final line and end it with a newline. */
void ls_cli_ticker_stop(ls_cli_ticker *t);

#endif
