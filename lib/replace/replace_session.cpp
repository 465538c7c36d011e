// One replacement of a target: opening its temporary, and at close the rename or the drop.
#include "replace/replace_session.hpp"

#include <sys/stat.h>

#include <new>

namespace mapout::detail {

error_cause replace_session::open(const char* path, const options& opts, open_file& file,
                                  std::unique_ptr<replace_session>& out) noexcept {
  std::unique_ptr<replace_session> session(new (std::nothrow) replace_session);
  if (!session) return {ENOMEM, "open"};
  if (error_cause why = replacement::create(path, session->replacement_, file.fd)) return why;
  if (opts.write_if_changed && session->replacement_->target_exists()) {
    comparison::create(session->replacement_->target_path(), session->replacement_->target(),
                       session->comparison_);
  }
  out = std::move(session);
  return {};
}

void replace_session::commit(open_file& file, bool durable) noexcept {
  struct stat st;
  // Kept only when the name still holds the old file as it was: another process may have removed,
  // renamed or written it since open.
  if (!file.error && comparison_ && replacement_->target_untouched() &&
      sys().fstat(file.fd.get(), &st) == 0 &&
      comparison_->unchanged(static_cast<std::uint64_t>(st.st_size))) {
    return drop(file);
  }
  // Owner and bits first, so that fdatasync finds them with the bytes.
  if (!file.error) file.fail(replacement_->settle(file.fd.get()));
  if (!file.error && durable && retry_on_eintr(sys().fdatasync, file.fd.get()) != 0) {
    file.fail("fdatasync");
  }
  if (!file.error) file.fail(replacement_->link(file.fd.get()));
  // Closed before the rename: a file system that reports write-back errors at close (NFS) must
  // not have the target replaced first.
  if (!file.error) file.fail(file.fd.close());
  // Windows renames over no file that is open, the comparison's reader included.
  comparison_.reset();
  if (!file.error) file.fail(replacement_->rename(durable));
  drop(file);
}

void replace_session::drop(open_file& file) noexcept {
  file.fd.close();
  file.fail(replacement_->discard());
  comparison_.reset();
}

}  // namespace mapout::detail
