#include "attention/trace.h"

#include <stdexcept>

#include "attention/stage_catalogue.h"

namespace attn {

const Stage* StageList::find(std::string_view name) const {
    for (const Stage& s : stages)
        if (s.name == name) return &s;
    return nullptr;
}

const Matrix& StageList::at(std::string_view name) const {
    if (const Stage* s = find(name)) return s->value;
    throw std::out_of_range("no stage named " + std::string(name));
}

Stage& StageList::add(std::string name, Matrix value, Axis rows, Axis cols, Scale scale) {
    stages.push_back(Stage{std::move(name), std::move(value), rows, cols, scale});
    return stages.back();
}

void StageList::set(std::string name, Matrix value, Axis rows, Axis cols, Scale scale) {
    for (Stage& s : stages)
        if (s.name == name) {
            s = Stage{std::move(name), std::move(value), rows, cols, scale};
            return;
        }
    add(std::move(name), std::move(value), rows, cols, scale);
}

Stage& StageList::add(std::string name, Matrix value, std::optional<Axis> key_axis) {
    stages.push_back(catalogued_stage(std::move(name), std::move(value), key_axis));
    return stages.back();
}

void StageList::set(std::string name, Matrix value, std::optional<Axis> key_axis) {
    Stage stage = catalogued_stage(std::move(name), std::move(value), key_axis);
    for (Stage& s : stages)
        if (s.name == stage.name) {
            s = std::move(stage);
            return;
        }
    stages.push_back(std::move(stage));
}

}  // namespace attn
