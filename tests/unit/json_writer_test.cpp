#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(json_writer)
BOOST_AUTO_TEST_SUITE_END()
