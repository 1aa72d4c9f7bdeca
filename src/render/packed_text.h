// Text packed for embedding in a self-contained page: gzip-compressed (the
// page's script unpacks it with the browser's own DecompressionStream) and
// base64-encoded (inert inside a <script> element, whatever the text holds).
#pragma once
#include <string>
#include <string_view>

namespace btaudit {

std::string gzip_base64(std::string_view text);

}  // namespace btaudit
