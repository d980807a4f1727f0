/* Rows of the lu-vs-cusolver sweep (linsolve bench --lu-vs-cusolver) and
 * their CSV form, kept apart from the GPU run so that tests check them
 * everywhere. */
#ifndef LS_LU_VS_CUSOLVER_CSV_H
#define LS_LU_VS_CUSOLVER_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "linsolve.h"

/* A ratio is refused (and the residual shown instead) above this scaled
 * residual: LAPACK's threshold, the one every bench row is judged by. */
#define LS_LVC_RESIDUAL_MAX 30.0

typedef enum {
    LS_LVC_OK = 0,   /* measured, both residuals pass: the ratio stands */
    LS_LVC_REFUSED,  /* measured, but a residual or an info failed */
    LS_LVC_SKIPPED,  /* not run: did not fit in memory */
    LS_LVC_ERROR     /* the run failed */
} ls_lvc_state;

typedef struct ls_lvc_row {
    int n;
    ls_precision prec;
    double t_lu_first;             /* median seconds, fresh buffers every run */
    double t_lu;                   /* median seconds, the same buffers (graph replay) */
    double t_cusolver;             /* median seconds (measured rows) */
    double res_lu, res_cusolver;   /* scaled residuals */
    int info_lu, info_cusolver;
    int status;                    /* the perf request's status (0: it ran) */
} ls_lvc_row;

/* "n,precision,lu_first_ms,lu_replay_ms,cusolver_ms,ratio_first,ratio_replay" */
const char *ls_lvc_csv_header(void);

/* What a row is: skipped when status is LS_EDEVMEM or LS_ENOMEM, an error
 * for any other nonzero status, refused when a residual passes
 * LS_LVC_RESIDUAL_MAX (or is NaN) or an info is nonzero, else ok. */
ls_lvc_state ls_lvc_classify(const ls_lvc_row *r);

/* A ratio cell: "1.234" (cusolver time / lu time, t_lu = r->t_lu_first or
 * r->t_lu), or, with no comma so that the CSV keeps its seven columns,
 * "refused:lu_residual=45.1", "refused:cusolver_info=3",
 * "skipped:out_of_device_memory", "error:<status name>". */
void ls_lvc_ratio_text(const ls_lvc_row *r, double t_lu, char *buf, size_t len);

/* One CSV line, times in milliseconds (empty when not measured); both
 * ratio cells say the same when the row is not ok. */
void ls_lvc_csv_row(FILE *f, const ls_lvc_row *r);

#endif
