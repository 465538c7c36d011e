// mapout's writers: mapout::ostream through its own type (automatic, mapped and buffered
// strategies, and each extension mode), through std::ostream&, and the raw streambuf; and the
// log's rows: std::endl per line, crash_safe, and crash_safe with flush_publishes (every flush, or
// at most every 10 ms).
#include <mapout/ostream.hpp>
#include <mapout/streambuf.hpp>

#include "ostream_sink.hpp"

namespace perf {
namespace {

// Opens mapout::ostream with the options `Options` gives.
template <mapout::options (*Options)()>
struct options_opener {
  using file_type = mapout::ostream;
  using stream_type = mapout::ostream;
  static void open(mapout::ostream& file, const std::string& path) {
    file.open(path, std::ios::binary, Options());
  }
};

template <mapout::strategy Strategy>
mapout::options with_strategy() {
  mapout::options opts;
  opts.strategy = Strategy;
  return opts;
}

template <mapout::strategy Strategy>
using mapout_opener = options_opener<with_strategy<Strategy>>;

// What generic code sees: the same file, every call through the base class.
struct mapout_generic_opener : mapout_opener<mapout::strategy::automatic> {
  using stream_type = std::ostream;
};

// The mapping without the SIGBUS guard, to show what the guard costs.
mapout::options unguarded() {
  mapout::options opts = with_strategy<mapout::strategy::mapped>();
  opts.guard_faults = false;
  return opts;
}
using mapout_unguarded_opener = options_opener<unguarded>;

#ifdef PERF_HAVE_SIGBUS
mapout::options on_sigbus() {
  mapout::options opts = with_strategy<mapout::strategy::mapped>();
  opts.extension = mapout::extension::on_fault;
  return opts;
}
using mapout_sigbus_opener = options_opener<on_sigbus>;
#endif

// A log that a dying process loses none of, flushed or not.
mapout::options crash_safe() {
  mapout::options opts;
  opts.crash_safe = true;
  return opts;
}
using mapout_crash_safe_opener = options_opener<crash_safe>;

// The same, and each std::endl publishes the size, so that a reader (tail -f) sees the line.
mapout::options crash_safe_publishing() {
  mapout::options opts = crash_safe();
  opts.flush_publishes = true;
  return opts;
}
using mapout_publishing_opener = options_opener<crash_safe_publishing>;

// The same, publishing at most every 10 ms: the flushes between are stores into the tail file.
mapout::options crash_safe_publishing_every_10ms() {
  mapout::options opts = crash_safe_publishing();
  opts.publish_every = std::chrono::milliseconds(10);
  return opts;
}
using mapout_publishing_10ms_opener = options_opener<crash_safe_publishing_every_10ms>;

class streambuf_sink {
 public:
  explicit streambuf_sink(const std::string& path) : path_(path) {
    if (!buf_.open(path, std::ios::out | std::ios::binary)) throw_errno("open", path);
  }

  void byte(char c) { buf_.sputc(c); }
  void token(std::string_view text) {
    buf_.sputn(text.data(), static_cast<std::streamsize>(text.size()));
  }
  void line(std::uint32_t i, std::uint32_t) {
    char text[max_line_size];
    buf_.sputn(text, format_line(text, i) - text);
  }
  void block(const char* data, std::size_t size) {
    buf_.sputn(data, static_cast<std::streamsize>(size));
  }
  std::uint64_t tell() {
    return static_cast<std::uint64_t>(
        std::streamoff(buf_.pubseekoff(0, std::ios_base::cur, std::ios_base::out)));
  }
  void seek(std::uint64_t offset) {
    buf_.pubseekpos(static_cast<std::streamoff>(offset), std::ios_base::out);
  }
  void write_at(std::uint64_t offset, const char* data, std::size_t size) {
    const std::uint64_t end = tell();
    seek(offset);
    block(data, size);
    seek(end);
  }
  void close() {
    if (!buf_.close()) throw std::system_error(buf_.error(), buf_.error_message());
  }

 private:
  std::string path_;
  mapout::streambuf buf_;
};

// One stream fills blocks [first, last) of the blocks workload, from its own offset of the file.
void fill_blocks(const workload& work, const std::string& path, std::uint64_t first,
                 std::uint64_t last) {
  const std::size_t block = block_size(work.kind);
  const std::string& random = work.input->random;
  mapout::ostream out(path, std::ios::out | std::ios::in | std::ios::binary);
  if (!out.is_open()) throw std::system_error(out.error(), out.error_message());
  out.seekp(static_cast<std::streamoff>(first * block));
  for (std::uint64_t k = first; k < last; ++k) {
    out.write(random.data() + k * block % random.size(), static_cast<std::streamsize>(block));
  }
  out.close();
  if (!out) throw std::system_error(out.error(), out.error_message());
}

writer ostream_writer(std::string id, std::string label,
                      void (*run)(const workload&, const std::string&)) {
  writer w;
  w.id = std::move(id);
  w.label = std::move(label);
  w.apis = {"put",         "write",       "<<",    "write",       "write",
            "tellp+seekp", "tellp+seekp", "seekp", "seekp+write", "seekp+write"};
  w.run = run;
  return w;
}

}  // namespace

void add_mapout_writers(std::vector<writer>& list) {
  using mapout::strategy;
  writer automatic = ostream_writer("mapout", "mapout::ostream",
                                    run_sink<ostream_sink<mapout_opener<strategy::automatic>>>);
  automatic.apis[static_cast<std::size_t>(workload_kind::numbers)] = "<<";
  automatic.apis[static_cast<std::size_t>(workload_kind::doubles)] = "<<";
  // The one stream the parallel rows are set against.
  automatic.apis[static_cast<std::size_t>(workload_kind::parallel_csv)] = "<<";
  automatic.apis[static_cast<std::size_t>(workload_kind::parallel_tokens)] = "write";
  // The log written as the other log rows are, without a flush: what every ratio there is against.
  automatic.apis[static_cast<std::size_t>(workload_kind::log_lines)] = "<< '\\n'";
  list.push_back(automatic);
  list.push_back(ostream_writer("mapout-mapped", "mapout::ostream mapped",
                                run_sink<ostream_sink<mapout_opener<strategy::mapped>>>));
  writer unguarded = ostream_writer("mapout-unguarded", "mapout::ostream mapped, no guard",
                                    run_sink<ostream_sink<mapout_unguarded_opener>>);
  unguarded.quick = false;
  list.push_back(unguarded);
  list.push_back(ostream_writer("mapout-buffered", "mapout::ostream buffered",
                                run_sink<ostream_sink<mapout_opener<strategy::buffered>>>));
#ifdef PERF_HAVE_SIGBUS
  writer sigbus = ostream_writer("mapout-sigbus", "mapout::ostream on_sigbus",
                                 run_sink<ostream_sink<mapout_sigbus_opener>>);
  sigbus.quick = false;
  list.push_back(sigbus);
#endif
  writer generic = ostream_writer("mapout-ostream&", "mapout via std::ostream&",
                                  run_sink<ostream_sink<mapout_generic_opener>>);
  generic.apis[static_cast<std::size_t>(workload_kind::numbers)] = "<<";
  generic.apis[static_cast<std::size_t>(workload_kind::doubles)] = "<<";
  list.push_back(generic);

  // parallel: two threads, one stream each, fill the two halves of one file, to set against the
  // one stream of the mapout row.
  list.push_back(two_halves_writer<fill_blocks>("mapout-parallel", "mapout::ostream, 2 threads",
                                                "2 streams: write"));

  writer raw;
  raw.id = "mapout-streambuf";
  raw.label = "mapout::streambuf";
  raw.apis = {
      "sputc",      "sputn",      "to_chars+sputn",   "sputn",           "sputn", "pubseekpos",
      "pubseekpos", "pubseekpos", "pubseekpos+sputn", "pubseekpos+sputn"};
  raw.run = run_sink<streambuf_sink>;
  list.push_back(raw);

  list.push_back(
      log_writer("mapout-endl", "mapout::ostream + endl", "<< std::endl",
                 run_sink<ostream_sink<mapout_opener<strategy::automatic>, line_end::endl>>));
  list.push_back(log_writer("mapout-crash-safe", "mapout crash_safe", "<< '\\n'",
                            run_sink<ostream_sink<mapout_crash_safe_opener>>));
  list.push_back(log_writer("mapout-crash-safe-publishes", "mapout crash_safe+publish",
                            "<< std::endl",
                            run_sink<ostream_sink<mapout_publishing_opener, line_end::endl>>));
  list.push_back(log_writer("mapout-crash-safe-publish-10ms", "mapout crash_safe+pub 10ms",
                            "<< std::endl",
                            run_sink<ostream_sink<mapout_publishing_10ms_opener, line_end::endl>>));
}

}  // namespace perf
