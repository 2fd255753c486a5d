// SPDX-License-Identifier: Apache-2.0
// The only way into Boost.Asio/Beast. Boost 1.74's awaitable.hpp needs <utility> first.
#pragma once

#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
