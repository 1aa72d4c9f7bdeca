#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(text_verdicts)
BOOST_AUTO_TEST_SUITE_END()
