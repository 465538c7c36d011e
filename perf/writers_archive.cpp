// boost-archive: Boost.Serialization's text_oarchive of the doubles, the same program on
// std::ofstream and on mapout::ostream. The archive imbues the stream's locale with a codecvt of
// its own, so this row shows whether numbers stay on mapout's path under such a locale.
#include <boost/archive/text_oarchive.hpp>

#include "writers.hpp"

namespace perf {

void write_text_archive(const workload& work, std::ostream& out) {
  boost::archive::text_oarchive archive(out);
  for (std::uint64_t i = 0; i < work.count; ++i) archive << number_value(*work.input, i);
}

void add_archive_rows(std::vector<writer>& list) {
  for (writer& w : list) {
    if (w.id == "ofstream" || w.id == "mapout") {
      w.apis[static_cast<std::size_t>(workload_kind::boost_archive)] = "text_oarchive <<";
    }
  }
}

}  // namespace perf
