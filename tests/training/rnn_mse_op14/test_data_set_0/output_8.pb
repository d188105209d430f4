Br2.bias_hh_l0_gradJUµb¼bU½â
;½@Û¹òî±<