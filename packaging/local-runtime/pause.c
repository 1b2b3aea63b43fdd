/*
 * The pod sandbox's infrastructure process: holds the pod's namespaces open.
 * Blocks in pause(); reaps any child (zombies re-parented to it when it is a
 * PID namespace's init) on SIGCHLD; exits 0 on SIGTERM or SIGINT.
 * Built statically: gcc -static -Os -o pause pause.c
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_stop(int sig) {
  (void)sig;
  _exit(0);
}

static void on_child(int sig) {
  (void)sig;
  int saved = errno;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
  errno = saved;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "-v") == 0) {
    puts("pause (platform local-runtime) 3.9");
    return 0;
  }
  if (getpid() != 1) {
    /* Not an error: useful to run by hand. */
    fputs("pause: warning: not running as PID 1\n", stderr);
  }

  struct sigaction stop = {0};
  stop.sa_handler = on_stop;
  sigemptyset(&stop.sa_mask);
  if (sigaction(SIGINT, &stop, NULL) < 0 || sigaction(SIGTERM, &stop, NULL) < 0) {
    perror("pause: sigaction");
    return 1;
  }

  struct sigaction child = {0};
  child.sa_handler = on_child;
  sigemptyset(&child.sa_mask);
  child.sa_flags = SA_NOCLDSTOP | SA_RESTART;
  if (sigaction(SIGCHLD, &child, NULL) < 0) {
    perror("pause: sigaction");
    return 2;
  }

  for (;;) pause();
  return 42; /* not reached */
}
