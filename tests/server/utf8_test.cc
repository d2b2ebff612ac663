// UTF-8 helpers of the doors: validity, repair, and cutting on a character boundary.
#include "server/api/utf8.h"

#include "gtest/gtest.h"

namespace parplan {
namespace {

TEST(Utf8Test, PrefixNeverEndsInsideACharacter) {
  const std::string s =
      "ab\xC3\xA9"
      "cd";  // "abécd": é is two bytes at [2, 4)
  EXPECT_EQ(Utf8PrefixLength(s, 100), s.size());
  EXPECT_EQ(Utf8PrefixLength(s, 4), 4u);
  EXPECT_EQ(Utf8PrefixLength(s, 3), 2u);  // would cut é in half
  EXPECT_EQ(Utf8PrefixLength(s, 2), 2u);
  EXPECT_TRUE(IsValidUtf8(s.substr(0, Utf8PrefixLength(s, 3))));
  const std::string euro = "\xE2\x82\xAC\xE2\x82\xAC";  // two 3-byte characters
  EXPECT_EQ(Utf8PrefixLength(euro, 5), 3u);
  EXPECT_EQ(Utf8PrefixLength(euro, 2), 0u);
}

TEST(Utf8Test, InvalidBytesAreReplaced) {
  EXPECT_FALSE(
      IsValidUtf8("a\xFF"
                  "b"));
  EXPECT_EQ(ToValidUtf8("a\xFF"
                        "b"),
            "a?b");
}

}  // namespace
}  // namespace parplan
