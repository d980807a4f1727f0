#include "progress_ticker.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void draw(const ls_cli_ticker *t)
{
    double elapsed = now_s() - t->t0;
    if (t->fraction > 0.0 && t->fraction < 1.0)
        fprintf(stderr, "\r%-24.24s %5.1f%%  %7.1f s elapsed ", t->what, 100.0 * t->fraction,
                elapsed);
    else
        fprintf(stderr, "\r%-24.24s %7.1f s elapsed ", t->what, elapsed);
    fflush(stderr);
}

static void *run(void *arg)
{
    ls_cli_ticker *t = arg;
    pthread_mutex_lock(&t->lock);
    while (!t->stop) {
        draw(t);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 500000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec += 1;
            until.tv_nsec -= 1000000000L;
        }
        int rc = 0;
        while (!t->stop && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&t->wake, &t->lock, &until);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

void ls_cli_ticker_start(ls_cli_ticker *t, const char *what)
{
    memset(t, 0, sizeof *t);
    t->fraction = -1.0;
    t->t0 = now_s();
    snprintf(t->what, sizeof t->what, "%s", what ? what : "solving");
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->wake, NULL);
    t->active = pthread_create(&t->thread, NULL, run, t) == 0;
    if (!t->active) {
        pthread_cond_destroy(&t->wake);
        pthread_mutex_destroy(&t->lock);
    }
}

void ls_cli_ticker_update(void *arg, double fraction, const char *what)
{
    ls_cli_ticker *t = arg;
    (void)what;
    if (!t || !t->active)
        return;
    pthread_mutex_lock(&t->lock);
    t->fraction = fraction;
    pthread_mutex_unlock(&t->lock);
}

void ls_cli_ticker_stop(ls_cli_ticker *t)
{
    if (!t->active)
        return;
    pthread_mutex_lock(&t->lock);
    t->stop = 1;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->thread, NULL);
    t->fraction = 1.0;
    draw(t);
    fputc('\n', stderr);
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->lock);
    t->active = 0;
}
