/* A C consumer of an installed mapout: writes through mapout.h and reads the bytes back. */
#include <mapout/mapout.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  static char expected[1 << 21];
  static char got[sizeof expected];
  size_t length = 0;
  int i;
  FILE* in;
  mapout_file* out;
  if (argc != 2) {
    fputs("usage: app_c FILE\n", stderr);
    return 2;
  }
  out = mapout_open(argv[1], "w", NULL);
  if (out == NULL) {
    perror(argv[1]);
    return 1;
  }
  for (i = 0; i < 100000; ++i) {
    char line[32];
    const int n = snprintf(line, sizeof line, "line %d", i);
    if (i % 2 == 0) {
      mapout_puts(line, out);
      mapout_putc('\n', out);
    } else if (mapout_printf(out, "line %d\n", i) != n + 1) {
      perror(argv[1]);
      return 1;
    }
    memcpy(expected + length, line, (size_t)n);
    length += (size_t)n;
    expected[length++] = '\n';
  }
  if (mapout_close(out) != 0) {
    perror(argv[1]);
    return 1;
  }
  in = fopen(argv[1], "rb");
  if (in == NULL || fread(got, 1, sizeof got, in) != length || memcmp(got, expected, length) != 0) {
    fprintf(stderr, "app_c: %s does not hold the bytes written\n", argv[1]);
    return 1;
  }
  fclose(in);
  return 0;
}
