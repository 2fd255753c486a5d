// SPDX-License-Identifier: Apache-2.0
// The only way into Boost.Asio (the HTTP itself is http/request_parser.h and
// http/response_head.h). Boost 1.74's awaitable.hpp needs <utility> first.
#pragma once

#include <utility>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
