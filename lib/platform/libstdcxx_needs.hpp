// What libstdc++'s headers call from glibc's GNU part, for the portable build of lib/ on Linux
// (-U_GNU_SOURCE): declared here alone, so that lib/'s own code still sees POSIX and BSD only.
#pragma once

#include <pthread.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif
int pthread_cond_clockwait(pthread_cond_t* condition, pthread_mutex_t* mutex, clockid_t clock,
                           const struct timespec* deadline);
int pthread_mutex_clocklock(pthread_mutex_t* mutex, clockid_t clock,
                            const struct timespec* deadline);
#ifdef __cplusplus
}
#endif
