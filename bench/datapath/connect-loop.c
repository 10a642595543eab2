// The datapath bench's client: one process that times TCP connections in several network namespaces
// in turn, round after round, so that every namespace's figures are taken under the same load and
// within milliseconds of each other. A JavaScript client (the connect bench's) spends ~60 µs of its
// own per connection and varies by more than the rulesets differ; this loop spends a few syscalls.
//
// usage: connect-loop ROUNDS PER_ROUND NETNS_PATH:HOST:PORT:LISTEN_PORT ...
// For each target it enters the namespace, listens on 0.0.0.0:LISTEN_PORT, and per round makes
// PER_ROUND connections to HOST:PORT: connect (blocking), accept the connection on its listener,
// close both (the client with SO_LINGER 0: a RST, no TIME_WAIT to exhaust the ephemeral ports).
// Output: one line per round, the µs per connection of each target in order, separated by spaces.
// Exit 1 with a message on stderr if any connection fails (a refused one would look fast).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_TARGETS 8

struct target {
  int netns;
  int listener;
  struct sockaddr_in dst;
  const char *spec;
};

static void die(const char *what, const char *spec) {
  fprintf(stderr, "connect-loop: %s (%s): %s\n", what, spec, strerror(errno));
  exit(1);
}

static long parse_count(const char *s, const char *what) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < 1 || v > 10000000) {
    fprintf(stderr, "connect-loop: %s must be a positive integer, got '%s'\n", what, s);
    exit(2);
  }
  return v;
}

static unsigned short parse_port(const char *s, const char *spec) {
  long v = strtol(s, NULL, 10);
  if (v < 1 || v > 65535) {
    fprintf(stderr, "connect-loop: bad port in '%s'\n", spec);
    exit(2);
  }
  return (unsigned short)v;
}

/** NETNS_PATH:HOST:PORT:LISTEN_PORT; enters the namespace and leaves its listener open. */
static void open_target(struct target *t, char *spec) {
  t->spec = strdup(spec);
  char *path = strtok(spec, ":"), *host = strtok(NULL, ":"), *port = strtok(NULL, ":"), *lport = strtok(NULL, ":");
  if (!path || !host || !port || !lport) {
    fprintf(stderr, "connect-loop: target '%s' is not NETNS_PATH:HOST:PORT:LISTEN_PORT\n", t->spec);
    exit(2);
  }
  memset(&t->dst, 0, sizeof t->dst);
  t->dst.sin_family = AF_INET;
  t->dst.sin_port = htons(parse_port(port, t->spec));
  if (inet_pton(AF_INET, host, &t->dst.sin_addr) != 1) {
    fprintf(stderr, "connect-loop: bad IPv4 address in '%s'\n", t->spec);
    exit(2);
  }
  t->netns = open(path, O_RDONLY | O_CLOEXEC);
  if (t->netns < 0) die("open netns", t->spec);
  if (setns(t->netns, CLONE_NEWNET) < 0) die("setns", t->spec);
  t->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (t->listener < 0) die("socket", t->spec);
  int one = 1;
  setsockopt(t->listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons(parse_port(lport, t->spec)) };
  if (bind(t->listener, (struct sockaddr *)&any, sizeof any) < 0) die("bind", t->spec);
  if (listen(t->listener, 128) < 0) die("listen", t->spec);
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void one_connection(const struct target *t) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) die("socket", t->spec);
  if (connect(s, (const struct sockaddr *)&t->dst, sizeof t->dst) < 0) die("connect", t->spec);
  int a = accept(t->listener, NULL, NULL);
  if (a < 0) die("accept", t->spec);
  struct linger lg = { .l_onoff = 1, .l_linger = 0 };
  setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  close(s);
  close(a);
}

/** µs per connection over n connections to t, made from inside t's namespace. */
static double time_batch(const struct target *t, long n) {
  if (setns(t->netns, CLONE_NEWNET) < 0) die("setns", t->spec);
  double t0 = now_us();
  for (long i = 0; i < n; i++) one_connection(t);
  return (now_us() - t0) / n;
}

int main(int argc, char **argv) {
  if (argc < 4 || argc - 3 > MAX_TARGETS) {
    fprintf(stderr, "usage: connect-loop ROUNDS PER_ROUND NETNS_PATH:HOST:PORT:LISTEN_PORT ... (1 to %d targets)\n", MAX_TARGETS);
    return 2;
  }
  long rounds = parse_count(argv[1], "ROUNDS"), per = parse_count(argv[2], "PER_ROUND");
  int n = argc - 3;
  struct target targets[MAX_TARGETS];
  for (int i = 0; i < n; i++) open_target(&targets[i], argv[3 + i]);
  for (int i = 0; i < n; i++) time_batch(&targets[i], per / 10 + 1); // warm-up: routes, sockets, caches
  double us[MAX_TARGETS];
  for (long r = 0; r < rounds; r++) {
    // Odd rounds in reverse order: a target's place in the round (after which other) does not favour it.
    for (int k = 0; k < n; k++) {
      int i = (r % 2) ? n - 1 - k : k;
      us[i] = time_batch(&targets[i], per);
    }
    for (int i = 0; i < n; i++) printf(i ? " %.3f" : "%.3f", us[i]);
    printf("\n");
  }
  return 0;
}
