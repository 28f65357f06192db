#pragma once
// `taskmap reproduce NAME`: regenerates a reference paper's table or figure from taskmap's model
// and puts the paper's value beside taskmap's in every cell.
#include <string>
#include <vector>

namespace taskmap::repro {

enum class Verdict {
  Match,    // deterministic cell, equal to the paper's value as the paper rounds it
  Differs,  // deterministic cell that does not match (the note says why)
  Random,   // mean over seeds; the note says whether the paper's value is in [min, max]
  Info      // no paper value to compare with (exact value beside an approximation, ...)
};

struct Cell {
  std::string row, column;
  std::string paper;    // as printed in the paper, "" when it has none
  std::string taskmap;  // taskmap's value as shown
  double value = 0;     // taskmap's number behind `taskmap`
  Verdict verdict = Verdict::Info;
  std::string note;
};

struct Table {
  std::string title;
  std::vector<std::string> rows, columns;
  std::vector<Cell> cells;  // any order; looked up by (row, column)
  std::vector<std::string> notes;
};

struct Series {
  std::string name;
  bool model = false;  // the paper's closed form (drawn dashed) rather than taskmap's loads
  std::vector<double> x, y;
};

struct Figure {
  std::string name, title, x_label, y_label;
  std::vector<Series> series;
};

struct Reproduction {
  std::string name;
  std::vector<Table> tables;
  std::vector<Figure> figures;
};

struct Entry {
  std::string name, description;
};

std::vector<Entry> reproduction_list();
// Throws taskmap::Error for an unknown name.
Reproduction reproduce(const std::string& name);

std::string render_table(const Table& table);
std::string table_csv(const Table& table);
std::string figure_csv(const Figure& figure);
std::string figure_svg(const Figure& figure);
std::string verdict_name(Verdict v);

// The individual reproductions (one file each).
Reproduction percs_table(int number);
Reproduction rtt_table1();
Reproduction rtt_figure(int number);
Reproduction dragonfly_fig4();

}  // namespace taskmap::repro
