/* The length of an error message buffer, one for the library (a context's
 * error, the backends' err arguments) and the tools that read them. */
#ifndef LS_CORE_ERRLEN_H
#define LS_CORE_ERRLEN_H

#define LS_ERRLEN 512

#endif
