// taskmap(1): the commands and options from the CLI11 definitions, the catalogs' sections from
// their tables (render_man), and the few sections that have no table (environment, files,
// exit status, examples) written here.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "app_docs.h"
#include "commands.h"
#include "version.h"
#include "taskmap/core/catalog.h"
#include "taskmap/repro/reproduce.h"

namespace taskmap::cli {
namespace {

bool is_flag(const CLI::Option& option) { return option.get_items_expected_max() == 0; }

// "-h, --help" in bold, "--machine MACHINE" with the placeholder in italics; `keep_together`
// joins them with unbreakable spaces (the synopsis).
std::string option_usage(const CLI::Option& option, bool keep_together) {
  if (option.get_positional()) return fmt::format("\\fI{}\\fR", roff_text(option.get_name(true)));
  std::string names;
  for (const std::string& s : option.get_snames()) {
    names += fmt::format("{}\\fB\\-{}\\fR", names.empty() ? "" : ", ", s);
  }
  for (const std::string& l : option.get_lnames()) {
    names += fmt::format("{}\\fB{}\\fR", names.empty() ? "" : ", ", roff_text("--" + l));
  }
  if (is_flag(option)) return names;
  std::string placeholder = roff_text(option.get_type_name());
  if (keep_together) {  // unbreakable spaces, and no break points
    std::string joined;
    for (std::size_t i = 0; i < placeholder.size(); ++i) {
      if (placeholder.compare(i, 2, "\\:") == 0) {
        ++i;
      } else {
        joined += placeholder[i] == ' ' ? std::string("\\ ") : std::string(1, placeholder[i]);
      }
    }
    placeholder = joined;
  }
  return fmt::format("{}{}\\fI{}\\fR", names, keep_together ? "\\ " : " ", placeholder);
}

std::string synopsis_line(const ShownCommand& command) {
  std::string line = fmt::format("\\fB{}\\fR", command.path);
  for (const CLI::Option* option : shown_options(*command.app)) {
    const std::string usage = option_usage(*option, true);
    line += option->get_required() ? " " + usage : fmt::format(" [{}]", usage);
  }
  return line;
}

// An option's help line, with a catalog's list of synopses (catalog_help, the same in every
// command) replaced by a pointer to the catalog's section.
std::string option_help(const CLI::Option& option) {
  std::string help = option.get_description();
  for (auto catalog : listed_catalogs()) {
    const std::string list = catalog_help(catalog());
    const std::string_view title = catalog().info().title;
    if (const std::size_t at = help.find(list); at != std::string::npos) {
      std::string section(title);
      for (char& c : section) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      help.replace(at, list.size(), fmt::format("{} (see {} below)", title, section));
    }
  }
  return help;
}

std::string option_entry(const CLI::Option& option) {
  std::string out = fmt::format(".TP\n{}\n{}\n", option_usage(option, false), roff_text(option_help(option)));
  std::vector<std::string> notes;
  if (option.get_required()) notes.push_back("Required.");
  if (!option.get_default_str().empty()) {
    notes.push_back(fmt::format("Default: {}.", roff_text(option.get_default_str())));
  }
  std::vector<std::string> excluded;
  for (const CLI::Option* other : option.get_excludes()) excluded.push_back(roff_text(other->get_name()));
  std::sort(excluded.begin(), excluded.end());  // a set of pointers: sorted by address
  if (!excluded.empty()) notes.push_back(fmt::format("Not with {}.", fmt::join(excluded, ", ")));
  for (const std::string& note : notes) out += ".br\n" + note + "\n";
  return out;
}

// Environment variables that taskmap and its MPI libraries read (tests/cli/man_page_completion.cpp
// checks that every variable the sources read is here).
struct EnvironmentEntry {
  const char* name;
  const char* meaning;
};
const EnvironmentEntry kEnvironment[] = {
    {"SLURM_JOB_NODELIST",
     "The job's nodes, a Slurm host list, when `--nodes` is not given (on a machine with host names). Slots per node "
     "come from `SLURM_TASKS_PER_NODE`, else `SLURM_JOB_CPUS_PER_NODE` (`2(x3),1`), else the whole node."},
    {"PBS_NODEFILE", "Without `SLURM_JOB_NODELIST`: a file naming each node of the job once per slot."},
    {"TASKMAP_PROGRESS",
     "The progress line on stderr: `never` turns it off, `always` draws it even into a pipe; default: only on a "
     "terminal."},
    {"TASKMAP_DIST_PLUGIN",
     "Under an MPI launcher: the MPI plugin to open instead of `libtaskmap-dist-MPI.so` beside the binary or in the "
     "installation's library folder."},
    {"TASKMAP_SMPIRUN", "The smpirun that `taskmap validate` runs; default: smpirun."},
    {"TASKMAP_PROFILE_OUT",
     "The profiler library (`libtaskmap-profile-MPI.so`): the file rank 0 writes; default: taskmap-profile.txt."},
    {"TASKMAP_PROFILE_COLLECTIVES",
     "The profiler: collectives to record as the messages of an algorithm: `none` (default), `all`, or a list of "
     "NAME[:ALGORITHM] (bcast, reduce, allreduce, allgather, alltoall, gather, scatter)."},
    {"TASKMAP_MACHINE",
     "The reorder library (`libtaskmap-reorder-MPI.so`): the machine, any `--machine` spec; unset, topology "
     "constructors keep the identity order."},
    {"TASKMAP_NODE_TOPOLOGY", "The reorder library: the inside of the nodes, `hwloc:FILE`."},
    {"TASKMAP_ROUTING", "The reorder library: a `--routing` spec; default: the machine's."},
    {"TASKMAP_MAPPER",
     "The reorder library: a `--mapper` spec; default: auto with the work that fits half of the time limit."},
    {"TASKMAP_REORDER_SECONDS", "The reorder library: the time limit of the mapping, in seconds; default: 10."},
    {"TASKMAP_REORDER_WORKERS",
     "The reorder library: 1, rank 0 plans alone; default: the first process of each node plans, together."},
    {"TASKMAP_REORDER_REPORT", "The reorder library: rank 0 writes a JSON report of each reordered call there."},
    {"TASKMAP_REORDER_QUIET",
     "The reorder library: 1 silences the line rank 0 prints after each reordered call (warnings stay)."},
    {"TASKMAP_FAKE_HOST",
     "The reorder library, for tests: node names instead of MPI_Get_processor_name's, `@FILE` (line i: world rank "
     "i's host) or `cn01:0-3,cn02:4-7`."},
};

// A paragraph of plain text (`code` in bold).
std::string paragraph(std::string_view text) { return fmt::format(".PP\n{}\n", roff_text(text)); }

}  // namespace

std::string render_man_page(const CLI::App& app) {
  const std::vector<ShownCommand> commands = shown_commands(app);
  std::string description = app.get_description();
  if (description.starts_with("taskmap: ")) description = description.substr(9);
  std::string out =
      ".\\\" taskmap(1). Generated by `taskmap generate man` from the command's options (src/cli/main.cpp) and\n"
      ".\\\" the catalogs (include/taskmap/core/catalog.h); do not edit.\n";
  out += fmt::format(".TH TASKMAP 1 \"\" \"taskmap {}\" \"User Commands\"\n", version_number());
  // Left-aligned, no hyphenation: option names and specs stay whole and copyable.
  out += ".nh\n.ad l\n";
  out += fmt::format(".SH NAME\ntaskmap \\- {}\n", roff_text(description));

  out += ".SH SYNOPSIS\n";
  for (const ShownCommand& command : commands) {
    if (!command.app->get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); }).empty()) {
      continue;  // `taskmap export`: its subcommands' lines follow
    }
    out += fmt::format(".PP\n.in +4n\n.ti -4n\n{}\n.in\n", synopsis_line(command));
  }
  out += ".PP\n\\fBtaskmap\\fR \\fB\\-\\-help\\fR | \\fB\\-\\-help\\-all\\fR | \\fB\\-\\-version\\fR\n";

  out += ".SH DESCRIPTION\n";
  out += paragraph(
      "taskmap places the tasks of a parallel job (MPI ranks) on the slots of a machine and measures what the "
      "placement does to the network under the machine's routing: the load of every channel, the maximum channel "
      "load (MCL), throughput, hop-bytes and dilation. A machine is a torus, mesh, Dragonfly, PERCS, fat tree or "
      "any graph, or a real cluster read from its files (Slurm topology.conf, ibnetdiscover, Cray Aries), narrowed "
      "to the nodes of the job. The communication comes from a generated pattern or from a file, such as the "
      "profile that libtaskmap-profile records while an MPI program runs.");
  out += paragraph(
      "Machines, routings, patterns, mappers and placement formats are given as spec strings, "
      "`NAME[:VALUE][,KEY=VALUE...]`, each kind listed below with its parameters and defaults "
      "(docs/spec-strings.md). A mapper spec may be a pipeline `A+B`: B improves what A placed.");
  out += paragraph(
      "Errors are one line, `taskmap: error: ...`, naming the source, the place and the problem; no partial "
      "output file is left behind. The same input, options and seed give byte-identical output whatever the "
      "thread count.");

  out += ".SH OPTIONS\n";
  for (const CLI::Option* option :
       app.get_options([](const CLI::Option* o) { return !o->get_group().empty() && !o->get_positional(); })) {
    out += option_entry(*option);
  }

  out += ".SH COMMANDS\n";
  for (const ShownCommand& command : commands) {
    out += fmt::format(".SS \"{}\"\n{}\n", command.path, roff_text(command.app->get_description()));
    for (const CLI::Option* option : shown_options(*command.app)) out += option_entry(*option);
    if (command.path == "taskmap reproduce") {
      out += ".PP\nThe tables and figures (\\fBtaskmap reproduce \\-\\-list\\fR):\n";
      for (const repro::Entry& e : repro::reproduction_list()) {
        out += fmt::format(".TP\n\\fB{}\\fR\n{}\n", roff_text(e.name), roff_text(e.description));
      }
    }
  }

  for (auto catalog : listed_catalogs()) out += render_man(catalog());

  out += ".SH ENVIRONMENT\n";
  for (const EnvironmentEntry& e : kEnvironment) {
    out += fmt::format(".TP\n.B {}\n{}\n", roff_text(e.name), roff_text(e.meaning));
  }
  out += paragraph(
      "The MPI libraries are loaded into an MPI program with LD_PRELOAD; rank 0's environment is the one that "
      "counts.");

  out += ".SH FILES\n";
  const std::pair<const char*, const char*> files[] = {
      {"LIBDIR/libtaskmap-profile-MPI.so",
       "The MPI profiler, one per MPI found at build time (openmpi, mpich): records what each rank sends, for "
       "`--pattern file:PATH`."},
      {"LIBDIR/libtaskmap-reorder-MPI.so",
       "Topology constructors (MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create) with reorder = true "
       "return a rank order mapped onto the machine."},
      {"LIBDIR/libtaskmap-dist-MPI.so", "What `mpirun -np K taskmap ...` opens to spread eval, map and compare."},
      {"DATADIR/doc/taskmap/", "The documentation: every catalog with its parameters, spec strings, formats, the "
                               "report, MPI use."}};
  for (const auto& [path, meaning] : files) out += fmt::format(".TP\n.I {}\n{}\n", roff_text(path), roff_text(meaning));

  out += ".SH EXIT STATUS\n";
  const std::pair<const char*, const char*> statuses[] = {
      {"0", "Success."},
      {"1", "Bad input (a file, spec or value that cannot be used) or a run that cannot finish (out of memory, an "
            "output that cannot be written); one line on stderr says which and why."},
      {"2", "Command-line misuse: an unknown command or option, a missing one, or options that exclude each "
            "other."}};
  for (const auto& [status, meaning] : statuses) out += fmt::format(".TP\n.B {}\n{}\n", status, roff_text(meaning));

  out += ".SH EXAMPLES\n";
  // Each command in lines of at most 72 characters, continued with a backslash.
  const std::pair<const char*, std::vector<const char*>> examples[] = {
      {"Four placements of a 27-point halo on a Blue Gene/Q-like torus, side by side:",
       {"taskmap compare --machine torus:4x4x4x4x2,ppn=16 \\", "    --pattern halo3d:16x16x32,points=27 \\",
        "    --mappers default,order:TEDCBA,random,auto"}},
      {"A rankfile for a profiled program on the nodes of a Slurm job:",
       {"taskmap map --machine slurm:/etc/slurm/topology.conf \\",
        "    --pattern file:run1.txt --mapper scotch+refine-hb \\",
        "    --out-format openmpi-rankfile --out rankfile"}},
      {"How that rankfile does against the launcher's default, with an HTML report:",
       {"taskmap eval --machine slurm:/etc/slurm/topology.conf \\",
        "    --pattern file:run1.txt --mapping rankfile --report eval.html"}},
      {"Every routing with its parameters:", {"taskmap list routings"}}};
  for (const auto& [what, lines] : examples) {
    out += fmt::format(".PP\n{}\n.PP\n.RS 4\n.nf\n", roff_text(what));
    for (const char* line : lines) out += roff_text(line) + "\n";
    out += ".fi\n.RE\n";
  }

  out += ".SH SEE ALSO\n";
  out += roff_text(
      "mpirun(1), srun(1), smpirun(1); the documentation in DATADIR/doc/taskmap: architecture.md, "
      "spec-strings.md, machines.md, routings.md, patterns.md, mappers.md, formats.md, auto.md, report.md, "
      "mpi.md, clusters.md, references.md (the papers the catalogs cite).") + "\n";
  return out;
}

}  // namespace taskmap::cli
