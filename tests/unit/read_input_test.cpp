#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(read_input)
BOOST_AUTO_TEST_SUITE_END()
