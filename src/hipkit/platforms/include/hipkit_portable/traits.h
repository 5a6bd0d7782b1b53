// hipkit: the few type traits the GPU platforms' device headers need, in
// namespace __hk: NVRTC and hiprtc have no <type_traits> (and NVRTC none of
// clang's built-in traits, __is_integral & co.).  Shared by the NVIDIA and
// AMD platforms' device.h; the CPU platform's headers use <type_traits>.
#pragma once

namespace __hk {

template <bool B, class T = void>
struct enable_if {};
template <class T>
struct enable_if<true, T> {
  using type = T;
};

template <class T, class U>
struct is_same {
  enum : bool { value = false };
};
template <class T>
struct is_same<T, T> {
  enum : bool { value = true };
};

template <class T>
struct remove_cv {
  using type = T;
};
template <class T>
struct remove_cv<const T> {
  using type = T;
};
template <class T>
struct remove_cv<volatile T> {
  using type = T;
};
template <class T>
struct remove_cv<const volatile T> {
  using type = T;
};

template <class T>
struct is_pointer {
  enum : bool { value = false };
};
template <class T>
struct is_pointer<T*> {
  enum : bool { value = true };
};

// The fundamental types, without cv-qualifiers.
template <class T>
struct is_integral {
  enum : bool { value =
      is_same<T, bool>::value || is_same<T, char>::value || is_same<T, signed char>::value ||
      is_same<T, unsigned char>::value || is_same<T, wchar_t>::value ||
      is_same<T, char16_t>::value || is_same<T, char32_t>::value || is_same<T, short>::value ||
      is_same<T, unsigned short>::value || is_same<T, int>::value ||
      is_same<T, unsigned int>::value || is_same<T, long>::value ||
      is_same<T, unsigned long>::value || is_same<T, long long>::value ||
      is_same<T, unsigned long long>::value };
};
template <class T>
struct is_floating_point {
  enum : bool { value =
      is_same<T, float>::value || is_same<T, double>::value || is_same<T, long double>::value };
};
template <class T>
struct is_arithmetic {
  enum : bool { value = is_integral<T>::value || is_floating_point<T>::value };
};

}  // namespace __hk
