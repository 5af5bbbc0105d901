// SPDX-License-Identifier: GPL-3.0-or-later
#include "editor/model_check.h"

#include <QFileInfo>
#include <exception>

#include "core/check.h"
#include "io/mech_reader.h"
#include "io/mjcf_import.h"
#include "io/trep_import.h"
#include "system/compiled_system.h"

namespace ms::ui {

ModelLanguage languageForPath(const QString& path) {
  const QString ext = QFileInfo(path).suffix().toLower();
  if (ext == "mech") return ModelLanguage::Mech;
  if (ext == "trep") return ModelLanguage::Trep;
  if (ext == "mjcf" || ext == "xml") return ModelLanguage::Mjcf;
  return ModelLanguage::Plain;
}

std::vector<Diagnostic> checkModelText(const std::string& text, const std::string& fileName, ModelLanguage language,
                                       MechParseResult* parsed, const std::map<std::string, std::string>& overrides) {
  if (language == ModelLanguage::Plain) return {};
  // Read (every problem with its location), as the application's loader does.
  Diagnostics diags;
  Model model;
  bool ok = false;
  if (language == ModelLanguage::Mech) {
    MechParseResult result;
    ok = readMechText(text, fileName, overrides, result, diags);
    if (ok) model = result.model;
    if (parsed) *parsed = std::move(result);
  } else if (language == ModelLanguage::Mjcf) {
    // An .xml URDF is not checked here (as a .urdf is not).
    if (xmlRootElementName(text) == "robot") return {};
    ok = importMjcfString(text, fileName, QFileInfo(QString::fromStdString(fileName)).absolutePath().toStdString(), model, diags);
  } else {
    ok = importTrepString(text, fileName, model, diags);
  }
  std::vector<Diagnostic> out = diags.items();
  // Locations in other files are not positions in this buffer.
  for (Diagnostic& d : out)
    if (!d.file.empty() && d.file != fileName) {
      d.message = d.file + (d.line > 0 ? ":" + std::to_string(d.line) : std::string()) + ": " + d.message;
      d.line = d.column = 0;
    }
  // The separate compile step; its messages have no location.
  if (ok) {
    try {
      (void)compile(model);
    } catch (const UserError& e) {
      out.push_back({Severity::Error, fileName, 0, 0, e.what()});
    } catch (const std::exception& e) {
      out.push_back({Severity::Error, fileName, 0, 0, std::string("internal error: ") + e.what()});
    }
  }
  return out;
}

}  // namespace ms::ui
