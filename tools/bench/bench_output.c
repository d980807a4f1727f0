/* Safe output files of the measurement commands; see bench_output.h. */
#include "bench_output.h"

#include <string.h>

#include "bench_util.h"

int ls_bench_sink_check(const char *path, char *err, size_t errlen)
{
    if (!path || !strcmp(path, "-"))
        return 0;
    return ls_outfile_check(path, err, errlen);
}

int ls_bench_sink_open(ls_bench_sink *s, const char *path, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    int stdout_ = !path || !strcmp(path, "-");
    int st = ls_outfile_open(stdout_ ? "-" : path, &s->of, err, errlen);
    if (st != 0) {
        s->of = NULL;
        return st;
    }
    s->f = ls_outfile_stream(s->of);
    s->name = stdout_ ? "<stdout>" : path;
    return 0;
}

int ls_bench_sink_commit(ls_bench_sink *s, char *err, size_t errlen)
{
    if (!s->of)
        return 0;
    int st = ls_outfile_commit(s->of, err, errlen);
    s->of = NULL;
    s->f = NULL;
    return st;
}

void ls_bench_sink_abort(ls_bench_sink *s)
{
    ls_outfile_abort(s->of);
    s->of = NULL;
    s->f = NULL;
}

int ls_bench_sinks_open(const char *cmd, int count, ls_bench_sink *sinks,
                        const char *const *paths)
{
    char err[LS_ERRLEN] = "", plain[LS_ERRLEN];
    for (int i = 0; i < count; i++)
        memset(&sinks[i], 0, sizeof sinks[i]);
    /* every path checked before any is opened: nothing is created for a
     * command that cannot finish */
    for (int i = 0; i < count; i++)
        if (paths[i] && ls_bench_sink_check(paths[i], err, sizeof err) != 0)
            goto fail;
    for (int i = 0; i < count; i++)
        if (paths[i] && ls_bench_sink_open(&sinks[i], paths[i], err, sizeof err) != 0)
            goto fail;
    return 0;
fail:
    fprintf(stderr, "linsolve %s: %s\n", cmd, ls_bench_plain(err, plain, sizeof plain));
    return ls_bench_sinks_abort(count, sinks, LS_BENCH_EXIT_WRITE);
}

int ls_bench_sinks_commit(const char *cmd, int count, ls_bench_sink *sinks, int status)
{
    for (int i = 0; i < count; i++) {
        char err[LS_ERRLEN] = "", plain[LS_ERRLEN];
        if (ls_bench_sink_commit(&sinks[i], err, sizeof err) != 0) {
            fprintf(stderr, "linsolve %s: %s\n", cmd, ls_bench_plain(err, plain, sizeof plain));
            status = LS_BENCH_EXIT_WRITE;
        }
    }
    return status;
}

int ls_bench_sinks_abort(int count, ls_bench_sink *sinks, int status)
{
    for (int i = 0; i < count; i++)
        ls_bench_sink_abort(&sinks[i]);
    return status;
}
