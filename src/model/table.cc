// SPDX-License-Identifier: Apache-2.0
#include "model/table.h"

namespace cairn::model {

bool Expression::operator==(const Expression& o) const {
  return kind == o.kind && TypesEqual(data_type, o.data_type) && value == o.value &&
         field_name == o.field_name && func_name == o.func_name && args == o.args &&
         unparsed == o.unparsed;
}

bool Column::operator==(const Column& o) const {
  return name == o.name && TypesEqual(type, o.type) && comment == o.comment &&
         nullable == o.nullable && auto_increment == o.auto_increment &&
         default_value == o.default_value;
}

}  // namespace cairn::model
