// Transparent huge pages for the checker's large arrays (private to checkers/adya).
//
// At 10^6 transactions the checker writes a few hundred MiB of fresh arrays (observations, statement texts, version
// sets, the edge CSR) once each, front to back. With 4 KiB pages every 4 KiB of that is a page fault, and the faults
// cost about as much as the checker's own work (perf: clear_page, exc_page_fault and the page allocator were a quarter
// of ingest). Where the kernel applies huge pages only on request (transparent_hugepage = madvise, the common
// default), asking for them on these arrays makes one fault per 2 MiB and cuts TLB misses on the random accesses.
// Only a hint: where it is refused or unsupported nothing changes but the speed.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace txprop::adya::detail {

inline void advise_huge_pages(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20, kPage = 4096;
  // Small arrays stay on 4 KiB pages: a huge page is faulted in whole, and a small history would pay more for the
  // zeroing of mostly unused huge pages (a reservation is rarely filled) than it saves in faults.
  if (data == nullptr || bytes < 4 * kHuge) return;
  // madvise needs page-aligned bounds: advise only the pages that lie wholly inside the array.
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kPage - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

// The capacity of a vector (or string) just reserved.
template <typename Container>
void advise_huge_pages(const Container& c) {
  advise_huge_pages(c.data(), c.capacity() * sizeof(*c.data()));
}

}  // namespace txprop::adya::detail
