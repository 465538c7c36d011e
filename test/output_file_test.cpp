#include "mapout/ostream.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

TEST(Smoke, WritesHello) {
  {
    mapout::ostream out("/tmp/mapout_smoke.txt");
    ASSERT_TRUE(out.is_open());
    out << "const int n = " << 42 << ";\n";
    out.close();
    ASSERT_TRUE(out);
  }
  std::ifstream in("/tmp/mapout_smoke.txt");
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), "const int n = 42;\n");
}
