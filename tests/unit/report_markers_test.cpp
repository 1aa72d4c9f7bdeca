#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(report_markers)
BOOST_AUTO_TEST_SUITE_END()
