#include "config.h"

#include <pthread.h>
#include <signal.h>

#include "service/signals.h"

int signals_block(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGUSR1);
	sigaddset(set, SIGUSR2);
	return -pthread_sigmask(SIG_BLOCK, set, NULL);
}
