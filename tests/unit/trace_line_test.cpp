#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(trace_line)
BOOST_AUTO_TEST_SUITE_END()
