/* The lu-vs-cusolver rows as CSV; see lu_vs_cusolver_csv.h. */
#include "lu_vs_cusolver_csv.h"

#include <string.h>

const char *ls_lvc_csv_header(void)
{
    return "n,precision,lu_first_ms,lu_replay_ms,cusolver_ms,ratio_first,ratio_replay";
}

/* NaN fails too: a residual that is not a number proves nothing. */
static int residual_ok(double r)
{
    return r == r && r <= LS_LVC_RESIDUAL_MAX;
}

ls_lvc_state ls_lvc_classify(const ls_lvc_row *r)
{
    if (r->status == LS_EDEVMEM || r->status == LS_ENOMEM)
        return LS_LVC_SKIPPED;
    if (r->status != 0)
        return LS_LVC_ERROR;
    if (!residual_ok(r->res_lu) || !residual_ok(r->res_cusolver) || r->info_lu ||
        r->info_cusolver || !(r->t_lu_first > 0) || !(r->t_lu > 0) || !(r->t_cusolver > 0))
        return LS_LVC_REFUSED;
    return LS_LVC_OK;
}

void ls_lvc_ratio_text(const ls_lvc_row *r, double t_lu, char *buf, size_t len)
{
    switch (ls_lvc_classify(r)) {
    case LS_LVC_OK:
        snprintf(buf, len, "%.3f", r->t_cusolver / t_lu);
        return;
    case LS_LVC_SKIPPED:
        snprintf(buf, len, "skipped:%s",
                 r->status == LS_EDEVMEM ? "out_of_device_memory" : "out_of_host_memory");
        return;
    case LS_LVC_ERROR:
        snprintf(buf, len, "error:%s", ls_status_name(r->status));
        return;
    case LS_LVC_REFUSED:
        break;
    }
    if (!residual_ok(r->res_lu))
        snprintf(buf, len, "refused:lu_residual=%.3g", r->res_lu);
    else if (!residual_ok(r->res_cusolver))
        snprintf(buf, len, "refused:cusolver_residual=%.3g", r->res_cusolver);
    else if (r->info_lu)
        snprintf(buf, len, "refused:lu_info=%d", r->info_lu);
    else if (r->info_cusolver)
        snprintf(buf, len, "refused:cusolver_info=%d", r->info_cusolver);
    else
        snprintf(buf, len, "refused:no_time");
}

void ls_lvc_csv_row(FILE *f, const ls_lvc_row *r)
{
    char first[64], replay[64];
    ls_lvc_ratio_text(r, r->t_lu_first, first, sizeof first);
    ls_lvc_ratio_text(r, r->t_lu, replay, sizeof replay);
    ls_lvc_state s = ls_lvc_classify(r);
    if (s == LS_LVC_OK || s == LS_LVC_REFUSED)
        fprintf(f, "%d,%s,%.4f,%.4f,%.4f,%s,%s\n", r->n, ls_precision_name(r->prec),
                r->t_lu_first * 1e3, r->t_lu * 1e3, r->t_cusolver * 1e3, first, replay);
    else
        fprintf(f, "%d,%s,,,,%s,%s\n", r->n, ls_precision_name(r->prec), first, replay);
}
