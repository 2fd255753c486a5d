// SPDX-License-Identifier: Apache-2.0
#include "app/app.h"

int main(int argc, char** argv) { return cairn::app::Main(argc, argv); }
