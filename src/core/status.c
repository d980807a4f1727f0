/* ls_strerror / ls_status_name, generated from LS_STATUS_MAP so a code and
 * its text cannot drift apart (after libuv). */
#include <stdio.h>

#include "linsolve.h"

const char *ls_strerror(int status)
{
    switch (status) {
#define LS_STATUS_TEXT_(name, code, text) \
    case code: return text;
        LS_STATUS_MAP(LS_STATUS_TEXT_)
#undef LS_STATUS_TEXT_
    default: break;
    }
    if (status < 0 && status > -1000)
        return "illegal value of an argument (LAPACK info = -i)";
    if (status > 0)
        return "matrix is singular: a pivot U(i,i) is exactly zero (LAPACK info = i)";
    return "unknown status";
}

const char *ls_status_name(int status)
{
    switch (status) {
#define LS_STATUS_NAME_(name, code, text) \
    case code: return "LS_" #name;
        LS_STATUS_MAP(LS_STATUS_NAME_)
#undef LS_STATUS_NAME_
    default: break;
    }
    if (status < 0 && status > -1000)
        return "LS_ILLEGAL_ARG";
    if (status > 0)
        return "LS_SINGULAR";
    return "LS_UNKNOWN";
}
