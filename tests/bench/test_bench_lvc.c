/*
 * The lu-vs-cusolver CSV without a GPU: the header names the first-call and
 * the replay columns, a row is seven fields with times in ms and the ratios
 * cusolver / lu of each column, and a row whose residual passes 30 (or is
 * NaN, or has info != 0) carries no ratio. Exit status: number of failures.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lu_vs_cusolver_csv.h"
#include "testutil.h"

/* The CSV line of r, without its newline. */
static const char *line(const ls_lvc_row *r)
{
    static char buf[256];
    FILE *f = tmpfile();
    memset(buf, 0, sizeof buf);
    if (!f)
        return "(tmpfile failed)";
    ls_lvc_csv_row(f, r);
    rewind(f);
    if (!fgets(buf, sizeof buf, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return buf;
}

static int fields(const char *s)
{
    int c = 1;
    for (; *s; s++)
        c += *s == ',';
    return c;
}

static int expect(const ls_lvc_row *r, const char *want, ls_lvc_state state)
{
    const char *got = line(r);
    return lt_check(!strcmp(got, want) && fields(got) == 7 && ls_lvc_classify(r) == state,
                    "row n=%d: '%s' (want '%s', state %d)", r->n, got, want, (int)state);
}

int main(void)
{
    int bad = 0;
    bad += lt_check(!strcmp(ls_lvc_csv_header(), "n,precision,lu_first_ms,lu_replay_ms,"
                                                  "cusolver_ms,ratio_first,ratio_replay"),
                    "header '%s'", ls_lvc_csv_header());

    /* first call 22.1 ms, replay 19.5 ms, cuSOLVER 15.6 ms */
    ls_lvc_row r = {4096, LS_DOUBLE, 0.0221, 0.0195, 0.0156, 3.2, 4.1, 0, 0, 0};
    bad += expect(&r, "4096,double,22.1000,19.5000,15.6000,0.706,0.800", LS_LVC_OK);
    r.prec = LS_SINGLE, r.t_lu_first = 0.004, r.t_lu = 0.002, r.t_cusolver = 0.005;
    bad += expect(&r, "4096,single,4.0000,2.0000,5.0000,1.250,2.500", LS_LVC_OK);

    /* the residual limit is inclusive: 30 passes, just above does not */
    r.res_lu = 30.0;
    bad += expect(&r, "4096,single,4.0000,2.0000,5.0000,1.250,2.500", LS_LVC_OK);
    r.res_lu = 30.5;
    bad += expect(&r, "4096,single,4.0000,2.0000,5.0000,refused:lu_residual=30.5,"
                      "refused:lu_residual=30.5", LS_LVC_REFUSED);
    r.res_lu = NAN;
    bad += expect(&r, "4096,single,4.0000,2.0000,5.0000,refused:lu_residual=nan,"
                      "refused:lu_residual=nan", LS_LVC_REFUSED);
    r.res_lu = 1.0, r.res_cusolver = 1e3;
    bad += expect(&r, "4096,single,4.0000,2.0000,5.0000,refused:cusolver_residual=1e+03,"
                      "refused:cusolver_residual=1e+03", LS_LVC_REFUSED);
    r.res_cusolver = 1.0, r.info_lu = 7;
    bad += expect(&r, "4096,single,4.0000,2.0000,5.0000,refused:lu_info=7,refused:lu_info=7",
                  LS_LVC_REFUSED);
    /* a column with no time is no ratio for either */
    r.info_lu = 0, r.t_lu_first = 0.0;
    bad += expect(&r, "4096,single,0.0000,2.0000,5.0000,refused:no_time,refused:no_time",
                  LS_LVC_REFUSED);

    ls_lvc_row s = {32768, LS_DOUBLE, 0, 0, 0, 0, 0, 0, 0, LS_EDEVMEM};
    bad += expect(&s, "32768,double,,,,skipped:out_of_device_memory,"
                      "skipped:out_of_device_memory", LS_LVC_SKIPPED);
    s.status = LS_EDEVICE;
    char want[160];
    snprintf(want, sizeof want, "32768,double,,,,error:%s,error:%s", ls_status_name(LS_EDEVICE),
             ls_status_name(LS_EDEVICE));
    bad += expect(&s, want, LS_LVC_ERROR);

    printf("%d failure(s)\n", bad);
    return bad;
}
