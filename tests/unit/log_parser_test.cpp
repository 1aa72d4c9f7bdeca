#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(log_parser)
BOOST_AUTO_TEST_SUITE_END()
