#pragma once
// How readable a graph view is, measured on what it shows now: the scale,
// the boxes drawn and how many carry a label at what on-screen size, whether
// the graph's inputs and its outputs (and loss) are in view, the layout's
// extent, a clutter figure (edge crossings among the edges in view) and the
// time each phase of the open took. `flowlens FILE --view-report out.json`
// writes it for the first frame; tests read it instead of asserting looks.
#include <QJsonObject>
#include <QSize>
#include <QString>
#include <string>
#include <vector>

namespace flowlens::ui {

struct GraphDocument;
class GraphView;

struct ViewReport {
  QSize viewport;              // pixels
  double scale = 0;            // device pixels per scene unit (1 = 1:1)
  int boxes_laid_out = 0;      // boxes (nodes and groups) in the layout
  int boxes_drawn = 0;         // of which at least partly on screen
  int labelled_boxes = 0;      // drawn boxes whose title shows at ≥ NodeItem::kLegiblePixels
  double label_pixels_min = 0;     // over the drawn boxes that show a title
  double label_pixels_median = 0;
  std::vector<std::string> inputs;   // graph_inputs()
  bool inputs_in_view = false;       // the main input's box is on screen (main_graph_input)
  std::vector<std::string> outputs;  // graph_outputs() and the loss, if one is found
  bool outputs_in_view = false;      // some output's box is on screen
  double layout_width = 0, layout_height = 0;  // scene units
  int edges_drawn = 0;
  int edge_crossings = 0;  // proper crossings between the drawn edges' polylines
  // Milliseconds: reading and parsing the file, validating and analysing
  // it, grouping scopes, laying out, painting the first frame; and the sum.
  double parse_ms = 0, analysis_ms = 0, grouping_ms = 0, layout_ms = 0, first_paint_ms = 0;
  double total_ms() const { return parse_ms + analysis_ms + grouping_ms + layout_ms + first_paint_ms; }

  // The layout's aspect over the viewport's: 1 = same shape; the issue's
  // readability bar keeps it within [1/3, 3].
  double aspect_ratio_to_window() const;
  QJsonObject to_json() const;
};

// Measures `view` as it is now (call after its layout is shown and painted).
ViewReport measure_view(const GraphView& view, const GraphDocument& doc);

// Writes the report as indented JSON; false with `error` set on failure.
bool write_view_report(const ViewReport& report, const QString& path, QString* error);

}  // namespace flowlens::ui
